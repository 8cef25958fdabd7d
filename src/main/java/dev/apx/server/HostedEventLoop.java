package dev.apx.server;

import dev.apx.log.Log;
import dev.apx.server.api.IoHost;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.ManualIoEventLoop;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.FileDescriptor;

import java.lang.reflect.Field;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Netty's epoll I/O run by an {@link IoHost}'s thread instead of a thread of Netty's own: the
 * "one thread" mode (docs/server.md). The host watches Netty's epoll fd (readable while any
 * socket of the server has an event) and runs {@link #runIo()} when it fires; nothing here ever
 * blocks the host thread.
 *
 * <p>Three things Netty's own loop does for itself are done here:
 * <ul>
 *   <li>tasks posted from other threads ({@code execute}) wake the host through {@link IoHost#execute}
 *       (Netty's eventfd is only written while its loop blocks in epoll_wait, which this one never does);</li>
 *   <li>tasks the host thread queues outside a run (a write's completion listener, a flush) run after the
 *       host's call that queued them ({@link IoHost#afterEachCall});</li>
 *   <li>timers (idle and header timeouts, WebSocket pings) wake the host from a small timer thread,
 *       which sleeps until the earliest one is due.</li>
 * </ul>
 *
 * <p>Threads: {@link #runIo()} and {@link #runQueuedTasks()} on the host thread only.
 */
final class HostedEventLoop extends ManualIoEventLoop {
    private static final long NO_TIMER = Long.MAX_VALUE;
    /** Timers due within this of each other share one wake-up. */
    private static final long TIMER_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final Field EPOLL_FD = privateField(EpollIoHandler.class, "epollFd", FileDescriptor.class);
    private static final Field TASK_QUEUE = privateField(ManualIoEventLoop.class, "taskQueue", java.util.Queue.class);

    private final IoHost host;
    private final java.util.Queue<?> taskQueue; // Netty's, read to know whether a run is owed
    private final AtomicBoolean runRequested = new AtomicBoolean();
    private final AtomicLong timerDue = new AtomicLong(NO_TIMER); // System.nanoTime() of the earliest timer
    private final Thread timer;
    private boolean running;   // host thread only: inside a run, so a nested call queues nothing twice
    private int watchedFd = -1; // host thread only

    private HostedEventLoop(IoHost host, AtomicReference<HostedEventLoop> self) {
        super(null, host.thread(), executor -> new Handler(EpollIoHandler.newFactory().newHandler(executor), self));
        this.host = host;
        try {
            this.taskQueue = (java.util.Queue<?>) TASK_QUEUE.get(this);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        this.timer = Thread.ofPlatform().name("apx-io-timer").daemon(true).unstarted(this::timers);
    }

    /** True when this JVM can host Netty's I/O on a foreign thread (the native epoll transport loads). */
    static boolean available() {
        return EPOLL_FD != null && TASK_QUEUE != null && Epoll.isAvailable();
    }

    /** A loop run by {@code host}; it starts serving once the host runs its first task. */
    static HostedEventLoop start(IoHost host) {
        AtomicReference<HostedEventLoop> self = new AtomicReference<>();
        HostedEventLoop loop = new HostedEventLoop(host, self);
        self.set(loop);
        host.hooks(loop::runQueuedTasks, loop::hasQueuedTasks, () -> {
            if (loop.hasQueuedTasks()) {
                loop.requestRun();
            }
        });
        loop.timer.start();
        loop.requestRun();
        return loop;
    }

    /** I/O and tasks that are ready, on the host thread; then the next timer is armed. */
    int runIo() {
        runRequested.set(false); // before running: a request made during the run asks again
        if (running) {
            return 0;
        }
        running = true;
        try {
            return runNow();
        } finally {
            running = false;
            afterRun();
        }
    }

    /** Tasks the host thread queued outside a run (write listeners, flushes): no system call when there are none. */
    void runQueuedTasks() {
        if (running) {
            return;
        }
        running = true;
        try {
            runNonBlockingTasks(0);
        } finally {
            running = false;
            afterRun();
        }
    }

    private void afterRun() {
        if (isShuttingDown() && !isTerminated()) {
            requestRun(); // a shutdown completes over several runs
            return;
        }
        long delay = nextScheduledTaskNano();
        if (delay >= 0) {
            long due = System.nanoTime() + delay;
            long armed = timerDue.get();
            if (due < armed - TIMER_SLACK_NANOS && timerDue.compareAndSet(armed, due)) {
                LockSupport.unpark(timer);
            }
        }
    }

    /** Asks the host to run this loop soon (coalesced). Any thread. */
    private void requestRun() {
        if (runRequested.compareAndSet(false, true)) {
            try {
                host.execute(this::runIo);
            } catch (RuntimeException e) {
                runRequested.set(false);
                throw e;
            }
        }
    }

    private void timers() {
        while (!isTerminated()) {
            long due = timerDue.get();
            long now = System.nanoTime();
            if (due == NO_TIMER) {
                LockSupport.park(this);
            } else if (due - now > 0) {
                LockSupport.parkNanos(this, due - now);
            } else if (timerDue.compareAndSet(due, NO_TIMER)) {
                requestRun(); // the run re-arms the next timer
            }
        }
    }

    private void watch(int fd) {
        watchedFd = fd;
        host.watch(fd, this::runIo);
    }

    private void unwatch() {
        if (watchedFd >= 0) {
            host.unwatch(watchedFd);
            watchedFd = -1;
        }
        LockSupport.unpark(timer);
    }

    /**
     * Netty's epoll handler, with the host's wake-ups. The epoll fd is private in Netty 4.2; reading
     * it is the one reflective step (checked by {@link #available()}; Netty's version is pinned).
     */
    private record Handler(IoHandler epoll, AtomicReference<HostedEventLoop> loop) implements IoHandler {
        @Override
        public void initialize() {
            epoll.initialize();
            try {
                loop.get().watch(((FileDescriptor) EPOLL_FD.get(epoll)).intValue());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("apx: cannot read Netty's epoll fd", e);
            }
        }

        @Override
        public int run(IoHandlerContext context) {
            return epoll.run(context);
        }

        @Override
        public void prepareToDestroy() {
            epoll.prepareToDestroy();
        }

        @Override
        public void destroy() {
            loop.get().unwatch(); // before the fd is closed: the host must not poll a closed (or reused) fd
            epoll.destroy();
        }

        @Override
        public IoRegistration register(IoHandle handle) throws Exception {
            return epoll.register(handle);
        }

        @Override
        public void wakeup() {
            HostedEventLoop hosted = loop.get();
            if (hosted != null && !hosted.inEventLoop()) {
                hosted.requestRun();
            }
        }

        @Override
        public boolean isCompatible(Class<? extends IoHandle> handleType) {
            return epoll.isCompatible(handleType);
        }
    }

    /** Tasks queued and not run yet (host thread). */
    boolean hasQueuedTasks() {
        return !taskQueue.isEmpty();
    }

    private static Field privateField(Class<?> owner, String name, Class<?> type) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            return field.getType() == type ? field : null;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            Log.warning("apx: Netty's " + owner.getSimpleName() + "." + name + " is out of reach (" + e
                    + "): the sockets' I/O runs on Netty's own threads");
            return null;
        }
    }
}
