package dev.apx.bridge;

import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;

/**
 * One request's coroutine and the asyncio task that runs it.
 *
 * <p>The task is asyncio's own (the C {@code _asyncio.Task} where it exists), made over the app's
 * coroutine in the request's {@code contextvars.Context} (a copy of the server's, or an empty one).
 * apx takes only its first step, where the request arrived: on the caller's thread under the step
 * lock (CALLER mode) or in one of apx's callbacks on the loop thread. Every later step is asyncio's,
 * on the loop thread, at the cost of a step under Uvicorn: the bridge's own driver cost ~4 µs more
 * per await (docs/bridge.md, "asyncio's task drives").
 *
 * <p>The task and context are held here, and this object by the bridge, until the task ends:
 * nothing in flight depends on the loop's weak references to its tasks.
 */
public final class Request {
    private final long id;
    private final Bridge bridge;
    private final RequestListener listener;
    private final String label;
    private final boolean freshContext;
    private PyRef task;
    private PyRef context;
    private boolean finished;
    private Invocation pendingBegin;    // what makes the coroutine, while the beginning waits in loop._ready
    private boolean cancelOnBegin;      // cancelled before its task existed
    private boolean pendingAfterBegin;  // its first step left it waiting: the loop finishes it
    private Thread beganOn;
    private Thread endedOn;

    Request(long id, Bridge bridge, RequestListener listener, String label, boolean freshContext) {
        this.id = id;
        this.freshContext = freshContext;
        this.bridge = bridge;
        this.listener = listener;
        this.label = label;
    }

    /** What the slow-step warning calls this request, e.g. {@code GET /path}. */
    public String label() {
        return label != null ? label : "request " + id;
    }

    public long id() {
        return id;
    }

    /** Threads it ran on: 1 when it ended where it began, 2 when the loop thread finished it after a caller began it. */
    public int hops() {
        return beganOn == null || endedOn == null || beganOn == endedOn ? 1 : 2;
    }

    /** 0 when it ended in its first step, 1 when that left it waiting and asyncio's task took over (which counts no further). */
    public int suspensions() {
        return pendingAfterBegin ? 1 : 0;
    }

    public boolean isFinished() {
        return finished;
    }

    /** The request's asyncio task ({@code asyncio.current_task()} while it runs); null before it began. */
    public PyRef task() {
        return task;
    }

    /** Keeps what makes the coroutine while the beginning waits in {@code loop._ready}. */
    void deferBegin(Invocation invocation) {
        pendingBegin = invocation;
    }

    /** The deferred beginning (a {@code call_soon} callback, on the loop thread). */
    void beginDeferred(Gil gil) {
        Invocation invocation = pendingBegin;
        pendingBegin = null;
        begin(gil, invocation);
    }

    /** Makes the coroutine with {@code invocation} and the task over it, and takes the task's first step here. */
    void begin(Gil gil, Invocation invocation) {
        AsyncioApi api = bridge.api();
        beganOn = Thread.currentThread();
        PyRef coroutine;
        try {
            context = bridge.requestContext(gil, freshContext);
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
            finished = true;
            complete(gil, null, e);
            return;
        }
        bridge.stepBegins(this);
        try (coroutine) {
            task = api.startTask().call(gil, coroutine, bridge.loop(), context, bridge.taskDoneCallback());
        } catch (PythonException e) { // apx's own failure (the task's are in the task)
            finished = true;
            complete(gil, null, e);
            return;
        } finally {
            bridge.stepEnds(this);
        }
        boolean done;
        try (PyRef isDone = task.callMethod(gil, "done")) {
            done = isDone.isTrue(gil);
        }
        if (done) {
            taskDone(gil);
            return;
        }
        pendingAfterBegin = true;
        bridge.awaitTask(gil, this);
        if (cancelOnBegin) {
            // Cancelled before it began (the client left, or its body was refused): the app still
            // sees the request's head first, as when it started at once.
            task.callMethod(gil, "cancel").close();
        }
    }

    /** The task is done (its done callback on the loop thread, or right after the first step). */
    void taskDone(Gil gil) {
        if (finished) {
            return;
        }
        finished = true;
        endedOn = Thread.currentThread();
        PyRef result = null;
        PythonException error = null;
        try {
            result = task.callMethod(gil, "result"); // also marks a failure as retrieved
        } catch (PythonException e) {
            error = e; // CancelledError when cancelled
        }
        complete(gil, result, error);
    }

    /** {@code task.cancel()}, also before the task exists (loop thread, with the GIL). */
    void cancel(Gil gil) {
        if (task == null) {
            cancelOnBegin = true;
        } else {
            task.callMethod(gil, "cancel").close();
        }
    }

    /** Tells the listener and releases everything this request held. Takes ownership of {@code result}. */
    private void complete(Gil gil, PyRef result, PythonException error) {
        try (PyRef none = result == null ? gil.none() : null) {
            listener.completed(gil, this, result == null ? none : result, error);
        } finally {
            if (result != null) {
                result.close();
            }
            if (error != null) {
                error.exception().close(); // it holds its traceback's frames: not left to the Cleaner
            }
            if (task != null) {
                task.close();
            }
            if (context != null) {
                context.close();
            }
            bridge.finished(this);
        }
    }
}
