package dev.apx.wsgi;

import dev.apx.log.Log;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The platform threads that run WSGI apps ({@code --blocking-threads}), never Netty's event loops:
 * a WSGI call blocks for as long as the app likes. Each keeps its CPython thread state for life
 * (see {@code Interpreter}). Requests beyond the thread count wait in a queue, as in Gunicorn's
 * gthread worker; {@code --limit-concurrency} bounds it.
 *
 * <p>A watchdog names each request still running after the slow-request time, once, as the
 * ASGI bridge names a handler that blocks the event loop.
 */
final class BlockingThreads implements AutoCloseable {
    private final ExecutorService threads;
    private final ScheduledExecutorService watchdog;
    private final Set<WsgiCycle> running = ConcurrentHashMap.newKeySet();
    private final long slowNanos;

    BlockingThreads(int count, long slowMillis) {
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

    /** Runs {@code call} for {@code cycle} on a blocking thread; false when the threads are shut down. */
    boolean submit(WsgiCycle cycle, Runnable call) {
        try {
            threads.execute(() -> {
                cycle.startedAt = System.nanoTime();
                running.add(cycle);
                try {
                    call.run();
                } finally {
                    running.remove(cycle);
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
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
