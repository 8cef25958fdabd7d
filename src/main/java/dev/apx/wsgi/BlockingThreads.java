package dev.apx.wsgi;

import dev.apx.log.Log;
import dev.apx.python.Gil;
import dev.apx.python.Interpreter;

import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The platform threads that run WSGI apps ({@code --blocking-threads}), never Netty's event loops:
 * a WSGI call blocks for as long as the app likes. Each keeps its CPython thread state for life
 * (see {@code Interpreter}). Requests beyond the thread count wait in a queue, as in Gunicorn's
 * gthread worker; {@code --limit-concurrency} bounds it.
 *
 * <p>A thread takes requests from the queue only once it holds the GIL, and goes on taking them
 * while there are some: under load one thread runs request after request without releasing and
 * re-taking the GIL, and no request waits, taken, behind a thread that waits for the GIL (a drain
 * is still posted per request; the thread that runs it finds the queue empty, or waits for the
 * GIL holding no request). CPython's switch interval (5 ms) still hands the GIL to
 * the other threads, and an app that blocks releases it, so waiting apps overlap as before.
 *
 * <p>A watchdog names each request still running after the slow-request time, once, as the
 * ASGI bridge names a handler that blocks the event loop.
 */
final class BlockingThreads implements AutoCloseable {
    private final Interpreter interpreter;
    private final ExecutorService threads;
    private final Queue<Task> queue = new ConcurrentLinkedQueue<>();
    private final ScheduledExecutorService watchdog;
    private final Set<WsgiCycle> running = ConcurrentHashMap.newKeySet();
    private final long slowNanos;

    private record Task(WsgiCycle cycle, Consumer<Gil> call) {
    }

    BlockingThreads(Interpreter interpreter, int count, long slowMillis) {
        this.interpreter = interpreter;
        AtomicInteger ids = new AtomicInteger();
        threads = Executors.newFixedThreadPool(count, work -> {
            Thread thread = Thread.ofPlatform().name("apx-wsgi-" + ids.incrementAndGet()).daemon(true).unstarted(work);
            return thread;
        });
        slowNanos = TimeUnit.MILLISECONDS.toNanos(slowMillis);
        if (slowMillis > 0) {
            watchdog = Executors.newSingleThreadScheduledExecutor(work -> Thread.ofPlatform().name("apx-wsgi-watchdog").daemon(true).unstarted(work));
            long period = Math.max(10, slowMillis / 4);
            watchdog.scheduleAtFixedRate(this::reportSlow, period, period, TimeUnit.MILLISECONDS);
        } else {
            watchdog = null;
        }
    }

    /** Runs {@code call} for {@code cycle} on a blocking thread, with the GIL; false when the threads are shut down. */
    boolean submit(WsgiCycle cycle, Consumer<Gil> call) {
        Task task = new Task(cycle, call);
        queue.add(task);
        try {
            threads.execute(this::drain); // one drain per task: this drain or another one takes it
            return true;
        } catch (RejectedExecutionException e) {
            return !queue.remove(task); // a drain already took it: it runs
        }
    }

    private void drain() {
        if (queue.isEmpty()) {
            return; // a thread that held the GIL took this drain's task: no GIL round trip for nothing
        }
        interpreter.run(gil -> {
            for (Task task = queue.poll(); task != null; task = queue.poll()) {
                task.cycle.startedAt = System.nanoTime();
                running.add(task.cycle);
                try {
                    task.call.accept(gil);
                } finally {
                    running.remove(task.cycle);
                }
            }
        });
    }

    private void reportSlow() {
        long now = System.nanoTime();
        for (WsgiCycle cycle : running) {
            if (!cycle.reportedSlow && now - cycle.startedAt >= slowNanos) {
                cycle.reportedSlow = true;
                Log.warning("apx: " + cycle.label + " has run for " + TimeUnit.NANOSECONDS.toMillis(now - cycle.startedAt)
                        + " ms in the WSGI app and is still running (a slow query, blocking I/O, a hung handler?)");
            }
        }
    }

    /** Stops taking requests and waits up to {@code millis} for the running ones (a hung app is left behind: daemon threads). */
    @Override
    public void close() {
        close(5000);
    }

    void close(long millis) {
        threads.shutdown();
        try {
            threads.awaitTermination(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (watchdog != null) {
            watchdog.shutdownNow();
        }
    }
}
