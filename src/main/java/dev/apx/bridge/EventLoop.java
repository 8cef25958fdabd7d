package dev.apx.bridge;

import dev.apx.config.LoopKind;
import dev.apx.log.Log;
import dev.apx.python.Gil;
import dev.apx.python.Interpreter;
import dev.apx.python.OsThread;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The loop thread: one platform thread running asyncio's or uvloop's loop until closed, under one
 * root task as {@code asyncio.run} does (anyio gives its worker threads to that task).
 *
 * <p>The step lock (CALLER start mode): a task step on a caller thread and a callback batch on the
 * loop thread must never overlap, because asyncio keeps one current task per loop and the GIL can
 * switch in the middle of a step. The loop thread holds the lock whenever it runs Python, except
 * while it waits in {@code select()} (the selector is wrapped, see {@code _bridge.SteppingSelector});
 * a caller takes it for each drive. Order: step lock first, GIL second, never the other way
 * (the loop thread releases the GIL while it waits for the lock).
 */
final class EventLoop implements AutoCloseable {
    private static final long STALL_CHECK_MILLIS = 100;
    private static final long STALL_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final long HEARTBEAT_MILLIS = 100;

    private final Interpreter interpreter;
    private final BridgeStats stats;
    private final ReadyQueue readyQueue = new ReadyQueue();
    private final CountDownLatch started = new CountDownLatch(1);
    private final Thread thread;
    private final Thread watchdog;
    private final String requestedKind;
    private final StartMode requestedMode;
    /** Null unless callers drive (CALLER mode). Fair, so callers queued for it go before the loop's next batch. */
    private volatile ReentrantLock stepLock;
    private volatile long selectingSince; // 0 while the loop thread runs Python
    private volatile double selectTimeout;  // of the select the loop is in (set before selectingSince); -1: none
    private volatile OsThread osThread;     // the loop thread, as the kernel sees it
    private volatile boolean running = true;
    private volatile boolean closing;
    private volatile Throwable startupError;
    private final SlowSteps slowSteps;
    private volatile java.util.function.LongFunction<String> requestLabels = id -> null;
    private PyRef currentTask; // asyncio.current_task

    private static final int SAFE_POINT_ROUNDS = 16;
    private int callbackDepth;              // loop thread only: apx callbacks in progress (see callback())
    private Runnable ioAtSafePoint;          // loop thread only
    private java.util.function.BooleanSupplier hostedIo = () -> false;

    private PyRef loop;
    private PyRef stopped; // done when the loop is to stop (_apx._bridge.run_until_stopped)
    private AsyncioApi api;
    private String kind;
    private StartMode startMode;
    private PyRef readyLengthOwner; // loop._ready (asyncio only)
    private PyRef scheduled;        // loop._scheduled (asyncio only)

    EventLoop(Interpreter interpreter, LoopKind requested, StartMode mode, BridgeStats stats, long slowDriveMillis) {
        this.interpreter = interpreter;
        this.slowSteps = new SlowSteps(slowDriveMillis, stats.slowDrives);
        this.stats = stats;
        this.requestedKind = requested.name().toLowerCase(java.util.Locale.ROOT);
        this.requestedMode = mode;
        this.thread = Thread.ofPlatform().name("apx-loop").daemon(true).unstarted(this::run);
        this.watchdog = Thread.ofPlatform().name("apx-loop-watchdog").daemon(true).unstarted(this::watch);
    }

    /** Starts the loop thread and waits until the loop runs. */
    void start() {
        thread.start();
        try {
            if (!started.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("apx: the event loop did not start within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the event loop", e);
        }
        if (startupError instanceof RuntimeException e) {
            throw e;
        }
        if (startupError != null) {
            throw new IllegalStateException("apx: the event loop failed to start", startupError);
        }
        watchdog.start();
    }

    private void run() {
        boolean callerMode = requestedMode != StartMode.LOOP;
        ReentrantLock lock = callerMode ? new ReentrantLock(true) : null;
        if (lock != null) {
            lock.lock();
        }
        try {
            interpreter.run(gil -> {
                setUp(gil, lock);
                started.countDown();
                try {
                    try (PyRef bridge = gil.importModule("_apx._bridge")) {
                        bridge.callMethod(gil, "run_until_stopped", loop, stopped).close();
                    }
                } finally {
                    tearDown(gil);
                }
            });
        } catch (Throwable t) {
            if (started.getCount() > 0) {
                startupError = t;
                started.countDown();
            } else {
                Log.error("apx: the event loop stopped with an error" + (t instanceof PythonException p ? ":\n" + p.pythonTraceback() : ""), t);
            }
        } finally {
            running = false;
            if (!closing && started.getCount() == 0 && startupError == null) {
                Log.error("apx: the event loop thread ended without being asked to; requests can no longer run");
            }
            ReentrantLock held = stepLock;
            if (held != null && held.isHeldByCurrentThread()) {
                held.unlock();
            }
        }
    }

    private void setUp(Gil gil, ReentrantLock lock) {
        osThread = OsThread.current();
        api = AsyncioApi.load(gil);
        PyRef release = gil.function("release_step", (g, args) -> {
            Object timeout = args.get(0);
            selectTimeout = timeout == null ? -1 : ((Number) timeout).doubleValue();
            selectingSince = System.nanoTime();
            slowSteps.loopBusy(0);
            if (stepLock != null) {
                stepLock.unlock();
            }
            return null;
        });
        PyRef acquire = gil.function("acquire_step", (g, args) -> {
            ReentrantLock held = stepLock;
            if (held != null && !held.tryLock()) {
                stats.deferredByStepLock.increment(); // a caller is mid-drive: its step goes first
                g.allowThreads(held::lock);
            } else if (held != null && held.hasQueuedThreads()) {
                held.unlock(); // fair hand-over to the queued callers before our next batch
                stats.deferredByStepLock.increment();
                g.allowThreads(held::lock);
            }
            selectingSince = 0;
            slowSteps.loopBusy(System.nanoTime());
            return null;
        });
        try (PyRef bridge = gil.importModule("_apx._bridge");
             PyRef created = bridge.callMethod(gil, "new_loop", requestedKind, release, acquire)) {
            Object[] pair = (Object[]) created.toJava(gil);
            loop = (PyRef) pair[0];
            kind = (String) pair[1];
        } finally {
            release.close();
            acquire.close();
        }
        startMode = requestedMode == StartMode.AUTO ? (kind.equals("asyncio") ? StartMode.CALLER : StartMode.LOOP) : requestedMode;
        if (startMode == StartMode.CALLER && !kind.equals("asyncio")) {
            throw new IllegalArgumentException("apx: start mode CALLER needs the asyncio loop (uvloop's selector cannot release the step lock)");
        }
        if (startMode == StartMode.CALLER) {
            stepLock = lock;
        } else if (lock != null) {
            lock.unlock();
        }
        if (kind.equals("asyncio")) {
            readyLengthOwner = loop.getAttr(gil, "_ready");
            scheduled = loop.getAttr(gil, "_scheduled");
        }
        try (PyRef asyncio = gil.importModule("asyncio")) {
            asyncio.callMethod(gil, "set_event_loop", loop).close();
            currentTask = asyncio.getAttr(gil, "current_task");
        }
        if (!kind.equals("asyncio") && slowSteps.enabled()) {
            startHeartbeat(gil);
        }
        stopped = loop.callMethod(gil, "create_future");
        try (PyRef bridge = gil.importModule("_apx._bridge");
             PyRef onError = gil.function("loop_error", (g, args) -> {
                 String message = String.valueOf(args.get(0));
                 stats.loopErrors.increment();
                 if (message.contains("Cannot enter into task")) {
                     stats.enterTaskCollisions.increment();
                 }
                 return null;
             });
             PyRef drain = gil.function("drain_ready_queue", (g, args) -> {
                 callback(g, () -> readyQueue.drain(g));
                 return null;
             })) {
            bridge.callMethod(gil, "LoopErrors", loop, onError).close();
            loop.callMethod(gil, "add_reader", readyQueue.fd(), drain).close();
        }
    }

    /** uvloop has no selector to wrap: a timer's ticks tell {@link SlowSteps} the loop still runs its callbacks. */
    private void startHeartbeat(Gil gil) {
        long periodNanos = TimeUnit.MILLISECONDS.toNanos(HEARTBEAT_MILLIS);
        try (PyRef bridge = gil.importModule("_apx._bridge");
             PyRef beat = gil.function("apx_heartbeat", (g, args) -> {
                 slowSteps.beat(periodNanos);
                 return null;
             })) {
            bridge.callMethod(gil, "heartbeat", loop, HEARTBEAT_MILLIS / 1000.0, beat).close();
        }
    }

    private void tearDown(Gil gil) {
        try {
            loop.callMethod(gil, "remove_reader", readyQueue.fd()).close();
            loop.callMethod(gil, "close").close();
        } catch (PythonException e) {
            Log.warning("apx: closing the event loop: " + e.getMessage());
        }
    }

    /**
     * Finds the loop asleep in select while work waits in {@code _ready} (or a timer is overdue)
     * and nothing will wake it: a missed wake-up. Counts it and wakes the loop.
     *
     * <p>Asleep means all of: it went into select with a timeout that has not run out (a select
     * with timeout 0 is the loop passing by with work ready); no wake-up was signalled since it last
     * drained its queue (one was: it returns from select, or already has, and waits for the GIL or
     * the step lock); no caller is mid-step (a caller wakes the loop when its step ends, if the
     * step queued work); and the loop thread is blocked in epoll, where the kernel can tell
     * ({@link OsThread}), not waiting for the GIL after another file descriptor woke it. A loop slowed by the GIL or the step lock is not a missed wake-up: under a
     * switch interval of 0.1 ms and CPU-bound threads it took up to a second to come back from a
     * select(0), which the check without the first two conditions reported.
     */
    private void watch() {
        while (running) {
            try {
                Thread.sleep(STALL_CHECK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            slowSteps.look(interpreter, loop, currentTask, requestLabels);
            long since = selectingSince;
            if (since == 0 || readyLengthOwner == null || System.nanoTime() - since < STALL_AFTER_NANOS) {
                continue;
            }
            if (readyLengthOwner.storedSize() == 0 && scheduled.storedSize() == 0) {
                continue; // nothing queued: no need to take the GIL from the threads serving requests
            }
            String stalled = interpreter.call(gil -> {
                // With the GIL the loop thread cannot move: it is in select or waits to come back.
                if (selectingSince != since || !asleep(since)) {
                    return null;
                }
                String queued;
                if (readyLengthOwner.len(gil) > 0) {
                    try (PyRef first = readyLengthOwner.callMethod(gil, "__getitem__", 0)) {
                        queued = first.repr(gil);
                    }
                } else if (overdueTimer(gil)) {
                    queued = "a timer overdue";
                } else {
                    return null;
                }
                // Read after the queue: a caller that queued work and has since left its step has woken the loop.
                ReentrantLock lock = stepLock;
                if ((lock != null && lock.isLocked()) || readyQueue.wakePending()) {
                    return null;
                }
                // Woken some other way (call_soon_threadsafe's self-pipe, a socket), the loop thread waits
                // for the GIL in a futex, not in epoll: the kernel says which.
                return Boolean.FALSE.equals(osThread.inPoll()) ? null : queued;
            });
            if (stalled != null) {
                // Logged before it is counted: whoever sees the count can find the line
                Log.warning("apx: the event loop slept in select with work queued (a missing wake-up); waking it (queued: " + stalled + ")");
                stats.stallsDetected.increment();
                readyQueue.wake();
            }
        }
    }

    /** The loop went into select at {@code since} with a timeout that has not run out. */
    private boolean asleep(long since) {
        double timeout = selectTimeout;
        return timeout < 0 || System.nanoTime() - since < (long) (timeout * 1e9);
    }

    void stepBegins(Request request) {
        slowSteps.stepBegins(request);
    }

    void stepEnds(Request request) {
        slowSteps.stepEnds(request);
    }

    /** How the slow-step warning names a request from its task's id (null: not a request's task). */
    void nameRequestsWith(java.util.function.LongFunction<String> labels) {
        requestLabels = labels;
    }

    private boolean overdueTimer(Gil gil) {
        if (scheduled.len(gil) == 0) {
            return false;
        }
        try (PyRef first = scheduled.callMethod(gil, "__getitem__", 0);
             PyRef when = first.callMethod(gil, "when");
             PyRef now = loop.callMethod(gil, "time")) {
            return (Double) now.toJava(gil) - (Double) when.toJava(gil) > STALL_AFTER_NANOS / 1e9;
        }
    }

    // --- used by the bridge

    PyRef loop() {
        return loop;
    }

    AsyncioApi api() {
        return api;
    }

    String kind() {
        return kind;
    }

    StartMode startMode() {
        return startMode;
    }

    ReadyQueue readyQueue() {
        return readyQueue;
    }

    ReentrantLock stepLock() {
        return stepLock;
    }

    Thread thread() {
        return thread;
    }

    boolean isLoopThread() {
        return Thread.currentThread() == thread;
    }

    /** Sizes of {@code loop._ready} and {@code loop._scheduled} (exact: the caller holds {@code gil}), to tell whether a caller's drive queued loop work. */
    long queuedWork(Gil gil) {
        return readyLengthOwner == null ? 0 : readyLengthOwner.storedSize() * 1_000_000L + scheduled.storedSize();
    }

    /**
     * Runs {@code action} on the loop thread. Posted by the loop thread inside one of apx's
     * callbacks it costs no wake-up: it runs at the callback's end.
     */
    void post(Consumer<Gil> action) {
        if (!running) {
            throw new IllegalStateException("apx: the event loop is not running");
        }
        if (callbackDepth > 0 && Thread.currentThread() == thread) {
            readyQueue.postQuietly(action);
        } else {
            readyQueue.post(action);
        }
    }

    /**
     * Runs {@code body} as one of the loop's calls into apx (an fd reader, a done callback, a
     * {@code call_soon}). When the outermost one ends, no task step is in progress on the loop
     * thread: a safe point, where what the loop thread queued meanwhile runs (its own posts, and
     * the {@link #hostIo hosted I/O}'s tasks). Loop thread, with the GIL.
     */
    void callback(Gil gil, Runnable body) {
        callbackDepth++;
        try {
            body.run();
        } finally {
            if (callbackDepth == 1) {
                safePoint(gil);
            }
            callbackDepth--;
        }
    }

    private void safePoint(Gil gil) {
        for (int round = 0; round < SAFE_POINT_ROUNDS; round++) {
            boolean idle = readyQueue.isEmpty();
            if (!idle) {
                readyQueue.runQueued(gil);
            }
            Runnable hook = ioAtSafePoint;
            if (hook != null && hostedIo.getAsBoolean()) {
                idle = false;
                hook.run();
            }
            if (idle) {
                return;
            }
        }
        readyQueue.wake(); // more work than one safe point should do: the rest in the loop's next round
    }

    /**
     * A server's I/O hosted on the loop thread: {@code atSafePoint} runs at each safe point (it
     * runs the I/O loop's queued tasks; {@code hasWork} says whether any are queued);
     * {@code afterOtherCall} after each other call from Python into Java on the loop thread, e.g.
     * an app's own task calling {@code send()}, where queued tasks must wait for a safe point.
     * Loop thread.
     */
    void hostIo(Gil gil, Runnable atSafePoint, java.util.function.BooleanSupplier hasWork, Runnable afterOtherCall) {
        ioAtSafePoint = atSafePoint;
        hostedIo = hasWork;
        interpreter.afterEachUpcall(() -> {
            if (callbackDepth == 0) {
                afterOtherCall.run();
            }
        });
    }

    @Override
    public void close() {
        if (!running) {
            return;
        }
        closing = true;
        readyQueue.post(gil -> {
            try (PyRef bridge = gil.importModule("_apx._bridge")) {
                bridge.callMethod(gil, "stop_loop", stopped).close();
            }
        });
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        watchdog.interrupt();
        running = false;
    }
}
