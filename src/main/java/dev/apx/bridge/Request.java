package dev.apx.bridge;

import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;

/**
 * One request's coroutine and the driver that steps it (the seeds' "drive cycle").
 *
 * <p>Every step is bracketed by {@code _enter_task}/{@code _leave_task} together with the
 * classification of what it yielded (attribute probes run Python); the bracket never spans a whole
 * drive. The request's {@code contextvars.Context} (a copy of the server's, or an empty one) is made
 * once and entered for the app call and each drive.
 * The coroutine, its task and the future it waits on are held here, and this object is held by the
 * bridge, until the coroutine ends: nothing in flight depends on a weak reference.
 *
 * <p>Threads: driven by one thread at a time, always with the GIL and (CALLER mode) the step lock;
 * the first drive on the caller's thread or the loop thread, every later one on the loop thread.
 */
public final class Request {
    private final long id;
    private final Bridge bridge;
    private final RequestListener listener;
    private final String label;
    private final boolean freshContext;
    private PyRef coroutine;
    private PyRef task;
    private PyRef context;
    private PyRef waiter;
    private boolean finished;
    private PyRef endResult;
    private PythonException endError;

    private Invocation pendingBegin; // what makes the awaitable, while the first drive waits in loop._ready
    private boolean cancelOnBegin;   // cancelled while waiting for its first drive
    private PyRef pendingValue; // what the next drive sends, when it was deferred with call_soon
    private PyRef pendingError;
    private int hops;
    private int suspensions;
    private Thread lastThread;
    private long lastEpoch = -1;

    Request(long id, Bridge bridge, RequestListener listener, String label, boolean freshContext) {
        this.id = id;
        this.freshContext = freshContext;
        this.bridge = bridge;
        this.listener = listener;
        this.label = label;
    }

    /** What the slow-drive warning calls this request, e.g. {@code GET /path}. */
    public String label() {
        return label != null ? label : "request " + id;
    }

    public long id() {
        return id;
    }

    /** GIL acquisitions this request was driven in. */
    public int hops() {
        return hops;
    }

    /** Times it suspended on a pending future. */
    public int suspensions() {
        return suspensions;
    }

    public boolean isFinished() {
        return finished;
    }

    /** The {@code asyncio.current_task()} of this request while it runs. */
    public PyRef task() {
        return task;
    }

    /** Creates the task and coroutine, then takes the first steps. */
    void begin(Gil gil, Invocation invocation) {
        AsyncioApi api = bridge.api();
        try {
            context = bridge.requestContext(gil, freshContext);
            task = api.requestTask().call(gil, bridge.loop(), id);
            // In the request's context, as Uvicorn calls the app inside its task: what a sync
            // __call__ (a middleware, an ASGI 2 constructor) sets is the request's, not the thread's
            context.enterContext(gil);
            try (PyRef awaitable = invocation.invoke(gil, this)) {
                coroutine = awaitable.hasExactType(gil, api.coroutineType())
                        ? awaitable.newRef(gil) // the common case, without a Python call
                        : api.asCoroutine().call(gil, awaitable);
            } finally {
                context.exitContext(gil);
            }
        } catch (PythonException e) {
            end(null, e);
            complete(gil);
            return;
        }
        drive(gil, null, null);
        if (cancelOnBegin && !finished) {
            // Cancelled while its first drive waited in the ready queue (the client left, or its body
            // was refused): the app still sees the request's head first, as when it started at once.
            task.callMethod(gil, "cancel").close();
        }
    }

    /**
     * Steps the coroutine, sending {@code value} (or throwing {@code error}), until it suspends on a
     * pending future, yields to the loop, or ends. Takes ownership of {@code value} and {@code error}.
     */
    void drive(Gil gil, PyRef value, PyRef error) {
        countHop();
        bridge.driveBegins(this);
        context.enterContext(gil);
        try {
            int budget = bridge.stepBudget();
            while (true) {
                if (budget-- == 0) {
                    bridge.resumeSoon(gil, this, value, error); // let the loop run others first
                    return;
                }
                Step step = step(gil, value, error);
                value = step.value;
                error = step.error;
                if (step.outcome != Outcome.CONTINUE) {
                    return;
                }
            }
        } finally {
            context.exitContext(gil);
            bridge.driveEnds(this);
            if (finished) {
                complete(gil); // outside the task bracket and the context
            }
        }
    }

    private enum Outcome { CONTINUE, SUSPENDED, RESCHEDULED, ENDED }

    private record Step(Outcome outcome, PyRef value, PyRef error) {
        static final Step SUSPENDED = new Step(Outcome.SUSPENDED, null, null);
        static final Step RESCHEDULED = new Step(Outcome.RESCHEDULED, null, null);
        static final Step ENDED = new Step(Outcome.ENDED, null, null);
    }

    /** One {@code coro.send()/throw()} and the classification of its result, inside the task bracket. */
    private Step step(Gil gil, PyRef value, PyRef error) {
        AsyncioApi api = bridge.api();
        PyRef loop = bridge.loop();
        try {
            api.enterTask().call(gil, loop, task).close();
        } catch (PythonException e) {
            bridge.stats().enterTaskCollisions.increment();
            close(value, error);
            end(null, e);
            return Step.ENDED;
        }
        try {
            if (mustCancel(gil)) {
                task.setAttr(gil, "_apx_must_cancel", false);
                close(value, error);
                value = null;
                try (PyRef message = task.getAttr(gil, "_apx_cancel_message")) {
                    error = api.cancelledError().call(gil, message);
                }
            }
            PyRef.Sent sent;
            try {
                sent = error == null ? coroutine.send(gil, value) : throwInto(gil, error);
            } catch (PythonException e) {
                end(null, e);
                return Step.ENDED;
            } finally {
                close(value, error);
            }
            if (sent.finished()) {
                end(sent.value(), null);
                return Step.ENDED;
            }
            return classify(gil, sent.value());
        } finally {
            try {
                api.leaveTask().call(gil, loop, task).close();
            } catch (PythonException e) {
                bridge.stats().enterTaskCollisions.increment();
            }
        }
    }

    /** Consumes the task's pending cancellation, asyncio's {@code _must_cancel} (edge-triggered). */
    private boolean mustCancel(Gil gil) {
        try (PyRef flag = task.getAttr(gil, "_apx_must_cancel")) {
            return flag.isTrue(gil);
        }
    }

    private PyRef.Sent throwInto(Gil gil, PyRef error) {
        try (PyRef yielded = coroutine.callMethod(gil, "throw", error)) {
            return new PyRef.Sent(false, yielded.newRef(gil));
        } catch (PythonException e) {
            if (e.pythonType().equals("StopIteration")) {
                return new PyRef.Sent(true, e.exception().getAttr(gil, "value"));
            }
            throw e;
        }
    }

    /** What asyncio's Task.__step does with a yielded value; takes ownership of {@code yielded}. */
    private Step classify(Gil gil, PyRef yielded) {
        AsyncioApi api = bridge.api();
        try (yielded) {
            if (yielded.isNone(gil)) {
                bridge.resumeSoon(gil, this, null, null); // bare yield, e.g. asyncio.sleep(0)
                return Step.RESCHEDULED;
            }
            Object blocking = futureBlocking(gil, yielded);
            if (!Boolean.TRUE.equals(blocking)) {
                return new Step(Outcome.CONTINUE, null, api.badYield().call(gil, task, yielded));
            }
            try (PyRef futureLoop = api.getLoop().call(gil, yielded)) {
                if (!futureLoop.is(gil, bridge.loop())) {
                    return new Step(Outcome.CONTINUE, null, api.otherLoopError().call(gil, task, yielded));
                }
            }
            yielded.setAttr(gil, "_asyncio_future_blocking", false);
            if (yielded.callMethod(gil, "done").isTrue(gil)) {
                return outcomeOf(gil, yielded); // already resolved: keep going, no suspension
            }
            suspend(gil, yielded);
            return Step.SUSPENDED;
        }
    }

    /** {@code getattr(obj, "_asyncio_future_blocking", None)} */
    private static Object futureBlocking(Gil gil, PyRef yielded) {
        try (PyRef blocking = yielded.getAttr(gil, "_asyncio_future_blocking")) {
            return blocking.toJava(gil);
        } catch (PythonException e) {
            if (e.pythonType().equals("AttributeError")) {
                return null;
            }
            throw e;
        }
    }

    /** A done future's result as the next value to send, or its exception as the next to throw. */
    private static Step outcomeOf(Gil gil, PyRef future) {
        try {
            return new Step(Outcome.CONTINUE, future.callMethod(gil, "result"), null);
        } catch (PythonException e) {
            return new Step(Outcome.CONTINUE, null, e.exception().newRef(gil));
        }
    }

    private void suspend(Gil gil, PyRef future) {
        suspensions++;
        waiter = future.newRef(gil);
        task.setAttr(gil, "_apx_waiter", waiter);
        bridge.awaitFuture(gil, this, waiter);
    }

    /** The future this request waited on is done (a done callback, on the loop thread). */
    void resume(Gil gil, PyRef future) {
        if (finished) {
            return;
        }
        task.setAttr(gil, "_apx_waiter", null);
        if (waiter != null) {
            waiter.close();
            waiter = null;
        }
        Step next = outcomeOf(gil, future);
        drive(gil, next.value, next.error);
    }

    /** {@code task.cancel()}, also before the first drive (loop thread, with the GIL). */
    void cancel(Gil gil) {
        if (task == null) {
            cancelOnBegin = true;
        } else {
            task.callMethod(gil, "cancel").close();
        }
    }

    /** Keeps what makes the awaitable while the first drive waits in {@code loop._ready}. */
    void deferBegin(Invocation invocation) {
        pendingBegin = invocation;
    }

    /** Keeps what the next drive sends while the request waits in {@code loop._ready}. */
    void defer(PyRef value, PyRef error) {
        pendingValue = value;
        pendingError = error;
    }

    /** Runs the deferred drive, the first one too (a {@code call_soon} callback, on the loop thread). */
    void resumeDeferred(Gil gil) {
        if (pendingBegin != null) {
            Invocation invocation = pendingBegin;
            pendingBegin = null;
            begin(gil, invocation);
            return;
        }
        PyRef value = pendingValue;
        PyRef error = pendingError;
        pendingValue = null;
        pendingError = null;
        if (finished) {
            close(value, error);
            return;
        }
        drive(gil, value, error);
    }

    private void countHop() {
        Thread current = Thread.currentThread();
        long epoch = bridge.epochOfCurrentThread();
        if (current != lastThread || epoch != lastEpoch) {
            hops++;
            lastThread = current;
            lastEpoch = epoch;
        }
    }

    /** Records how the coroutine ended; {@link #complete} reports it once the drive has left its bracket. */
    private void end(PyRef result, PythonException error) {
        finished = true;
        endResult = result;
        endError = error;
    }

    /** Tells the listener, marks the task finished and releases everything this request held. */
    private void complete(Gil gil) {
        try {
            if (task != null) {
                task.setAttr(gil, "_apx_finished", true);
                task.setAttr(gil, "_apx_waiter", null);
            }
            try (PyRef none = endResult == null ? gil.none() : null) {
                listener.completed(gil, this, endResult == null ? none : endResult, endError);
            }
        } finally {
            close(endResult, endError == null ? null : endError.exception()); // the exception holds its traceback's frames: not left to the Cleaner
            endResult = null;
            close(coroutine, waiter);
            close(task, context);
            bridge.finished(this);
        }
    }

    private static void close(PyRef a, PyRef b) {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }
}
