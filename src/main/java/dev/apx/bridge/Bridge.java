package dev.apx.bridge;

import dev.apx.python.Gil;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Runs ASGI coroutines as asyncio tasks of a running asyncio (or uvloop) event loop, taking each
 * task's first step where its request arrived. See docs/bridge.md for the rules the bridge keeps
 * with asyncio.
 *
 * <p>{@link #start} may be called from any platform thread that does not hold the GIL. In CALLER
 * start mode the first step runs right there, under the step lock; the rest is asyncio's, on the
 * loop thread.
 */
public final class Bridge implements AutoCloseable {
    private final Interpreter interpreter;
    private final BridgeConfig config;
    private final BridgeStats stats = new BridgeStats();
    private final EventLoop eventLoop;
    private final Map<Long, Request> inFlight = new ConcurrentHashMap<>();
    /** Requests whose task is pending, by the task's id(): what its done callback finishes. */
    private final Map<Long, Request> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final ThreadLocal<boolean[]> runningLoopSet = ThreadLocal.withInitial(() -> new boolean[1]);
    private final boolean leaveRunningLoopSet; // CPython 3.11-3.13: see beginOnCaller
    private PyRef taskDoneCallback;
    private PyRef beginSoonCallback;
    private volatile RequestObserver observer = RequestObserver.NONE;
    private volatile PyRef serverContext; // what each request's context copies (runRequestsIn; until then the starting thread's)

    private Bridge(Interpreter interpreter, BridgeConfig config) {
        this.interpreter = interpreter;
        String[] version = interpreter.install().version().split("\\.");
        this.leaveRunningLoopSet = Integer.parseInt(version[1]) < 14;
        this.config = config;
        this.eventLoop = new EventLoop(interpreter, config.loop(), config.startMode(), stats, config.slowDriveMillis());
        eventLoop.nameRequestsWith(taskId -> {
            Request request = pending.get(taskId);
            return request == null ? null : request.label();
        });
    }

    /** Starts the loop thread and returns once the loop runs. */
    public static Bridge start(Interpreter interpreter, BridgeConfig config) {
        Bridge bridge = new Bridge(interpreter, config);
        bridge.eventLoop.start();
        interpreter.run(gil -> {
            // Copied here, not where each request begins: a request can begin at a safe point inside
            // another's done callback, which runs in that request's context, and would inherit its values.
            bridge.serverContext = gil.copyContext();
            bridge.taskDoneCallback = gil.function("apx_task_done", (g, args) -> {
                try (PyRef task = args.ref(0)) {
                    Request request = bridge.pending.remove(task.id(g));
                    if (request != null) {
                        bridge.eventLoop.callback(g, () -> request.taskDone(g));
                    }
                }
                return null;
            });
            bridge.beginSoonCallback = gil.function("apx_begin_soon", (g, args) -> {
                Request request = bridge.inFlight.get((Long) args.get(0));
                if (request != null) {
                    bridge.eventLoop.callback(g, () -> request.beginDeferred(g));
                }
                return null;
            });
        });
        return bridge;
    }

    /** "asyncio" or "uvloop". */
    public String loopKind() {
        return eventLoop.kind();
    }

    public StartMode startMode() {
        return eventLoop.startMode();
    }

    public BridgeStats stats() {
        return stats;
    }

    /** Tells {@code requestObserver} about each coroutine that ends from now on (metrics). */
    public void observe(RequestObserver requestObserver) {
        this.observer = requestObserver;
    }

    public Interpreter interpreter() {
        return interpreter;
    }

    /** Requests whose coroutine has not ended. */
    public int inFlight() {
        return inFlight.size();
    }

    /** The event loop ({@code asyncio.get_running_loop()} of every request). */
    public PyRef loop() {
        return eventLoop.loop();
    }

    /**
     * Each request from now on runs in a copy of {@code context} (owned by the bridge from here on):
     * the context the app was imported in, as each Uvicorn request copies its server task's. Without
     * it a request copies the context of the thread that started the bridge, as it was then.
     */
    public void runRequestsIn(PyRef context) {
        PyRef before = serverContext; // never null: start() set it
        serverContext = context;
        before.close();
    }

    /** A new context for a request: a copy of the server's, or an empty one. */
    PyRef requestContext(Gil gil, boolean fresh) {
        if (fresh) {
            return gil.newContext();
        }
        return gil.copyContext(serverContext);
    }

    /**
     * Starts a request: makes its awaitable with {@code invocation} and its task. Returns at once
     * when the first step happens on the loop thread (LOOP mode), else after the first step.
     */
    public Request start(Invocation invocation, RequestListener listener) {
        return start(invocation, listener, null);
    }

    /** As {@link #start(Invocation, RequestListener)}; {@code label} names the request in the slow-drive warning. */
    public Request start(Invocation invocation, RequestListener listener, String label) {
        return start(invocation, listener, label, false);
    }

    /**
     * As {@link #start(Invocation, RequestListener, String)}; with {@code freshContext} the request
     * runs in an empty {@code contextvars.Context()} instead of a copy of the server's context
     * (Uvicorn's {@code --reset-contextvars}).
     */
    public Request start(Invocation invocation, RequestListener listener, String label, boolean freshContext) {
        Request request = new Request(ids.incrementAndGet(), this, listener, label, freshContext);
        inFlight.put(request.id(), request);
        stats.requestsDriven.increment();
        ReentrantLock stepLock = eventLoop.stepLock();
        if (eventLoop.isLoopThread() && interpreter.holdsGil()) {
            // Inside Python on the loop thread (the hosted I/O's reader, an app's task calling
            // send()): the beginning waits in the loop's queue, as create_task's first step does,
            // behind the tasks woken before it. Started at once it would take a free pool connection or
            // queue item ahead of a woken task that had waited for it (asyncio.Queue lets a newcomer
            // barge in), and a database pool's tail latency would grow several-fold.
            interpreter.run(gil -> beginSoon(gil, request, invocation));
        } else if (stepLock == null || interpreter.holdsGil()) {
            // LOOP mode, or a caller inside Python (taking the step lock there could deadlock). Begun
            // where the loop drains its posts: the barging the queued start prevents does not arise
            // here (a database pool's p99 is no better through call_soon) and the extra callback costs 2-4 %.
            eventLoop.post(gil -> request.begin(gil, invocation));
        } else {
            stepLock.lock(); // before the GIL, never after
            try {
                interpreter.run(gil -> beginOnCaller(gil, request, invocation));
            } finally {
                stepLock.unlock();
            }
        }
        return request;
    }

    private void beginOnCaller(Gil gil, Request request, Invocation invocation) {
        boolean[] set = runningLoopSet.get();
        if (!set[0]) {
            // Up to 3.13, once per caller thread and left set: asyncio.get_running_loop() works in
            // every step. (Setting and clearing it around each step cost two Python calls, and on 3.11
            // two getpid().) From 3.14 on, around each step: there asyncio.current_task(loop) asked
            // from another thread (the slow-step watchdog's look) answers with the task of the first
            // thread whose running loop is that loop, and an idle caller left set answered None.
            set[0] = leaveRunningLoopSet;
            eventLoop.api().setRunningLoop().call(gil, eventLoop.loop()).close();
        }
        long before = eventLoop.queuedWork(gil);
        try {
            request.begin(gil, invocation);
        } finally {
            if (!leaveRunningLoopSet) {
                try (PyRef none = gil.none()) {
                    eventLoop.api().setRunningLoop().call(gil, none).close();
                }
            }
            long after = eventLoop.queuedWork(gil);
            if (after > before) {
                // The app queued loop work (create_task, call_soon, a timer) from this thread: the
                // loop may be asleep in select and would not see it.
                stats.pokes.increment();
                eventLoop.readyQueue().wake();
            }
        }
    }

    /** Cancels a request: {@code task.cancel()}, CancelledError at its next await. Any thread. */
    public void cancel(Request request) {
        eventLoop.post(gil -> {
            if (!request.isFinished()) {
                request.cancel(gil);
            }
        });
    }

    /** A new pending asyncio future of this loop, for a Java-completed awaitable. */
    public PyRef newFuture(Gil gil) {
        return eventLoop.loop().callMethod(gil, "create_future");
    }

    /** Resolves {@code future} with {@code value} on the loop thread, unless it is already done. Any thread, no GIL needed. */
    public void complete(PyRef future, Object value) {
        eventLoop.post(gil -> {
            try (PyRef done = future.callMethod(gil, "done")) {
                if (!done.isTrue(gil)) {
                    future.callMethod(gil, "set_result", value).close();
                }
            }
        });
    }

    /** Runs {@code action} on the loop thread, with the GIL. Any thread. */
    public void runOnLoop(Consumer<Gil> action) {
        eventLoop.post(action);
    }

    /** The loop thread: it runs every continuation (and, hosting the server's I/O, every request). */
    public Thread loopThread() {
        return eventLoop.thread();
    }

    /** Calls {@code onReadable} on the loop thread each time {@code fd} is readable ({@code loop.add_reader}). Loop thread. */
    public void watchReadable(int fd, Runnable onReadable) {
        interpreter.run(gil -> {
            try (PyRef callback = gil.function("apx_fd_readable", (g, args) -> {
                eventLoop.callback(g, onReadable);
                return null;
            })) {
                eventLoop.loop().callMethod(gil, "add_reader", fd, callback).close();
            }
        });
    }

    /** Stops watching {@code fd} ({@code loop.remove_reader}). Loop thread. */
    public void unwatch(int fd) {
        interpreter.run(gil -> eventLoop.loop().callMethod(gil, "remove_reader", fd).close());
    }

    /**
     * Hooks for a server whose I/O runs on the loop thread: {@code atSafePoint} runs after each of
     * the loop's calls into apx, where no task step is in progress ({@code hasWork}: whether it has
     * anything to run); {@code afterOtherCall} after each other call from Python into Java there
     * (an app's own task calling {@code send()}), where it may only ask for a later run. Any thread.
     */
    public void hostIo(Runnable atSafePoint, java.util.function.BooleanSupplier hasWork, Runnable afterOtherCall) {
        eventLoop.post(gil -> eventLoop.hostIo(gil, atSafePoint, hasWork, afterOtherCall));
    }

    // --- the driver's side

    AsyncioApi api() {
        return eventLoop.api();
    }

    /** Queues the request's beginning in the loop's ready queue ({@code call_soon}), behind what is ready now. */
    private void beginSoon(Gil gil, Request request, Invocation invocation) {
        request.deferBegin(invocation);
        eventLoop.loop().callMethod(gil, "call_soon", beginSoonCallback, request.id()).close();
    }

    /** {@code on_done} of {@code _bridge.start_task}: finishes the request of a task that ended on the loop. */
    PyRef taskDoneCallback() {
        return taskDoneCallback;
    }

    /** {@code request}'s task is pending: its done callback finishes it. */
    void awaitTask(Gil gil, Request request) {
        pending.put(request.task().id(gil), request);
    }

    /** A first step of {@code request} starts (with the GIL); the watchdog reports it if it runs too long. */
    void stepBegins(Request request) {
        eventLoop.stepBegins(request);
    }

    void stepEnds(Request request) {
        eventLoop.stepEnds(request);
    }

    void finished(Request request) {
        inFlight.remove(request.id());
        observer.finished(request.hops(), request.suspensions());
    }

    @Override
    public void close() {
        eventLoop.close();
        interpreter.run(gil -> {
            taskDoneCallback.close();
            beginSoonCallback.close();
        });
        eventLoop.readyQueue().close();
    }

}
