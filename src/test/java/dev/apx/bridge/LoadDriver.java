package dev.apx.bridge;

import dev.apx.bridge.AsgiHarness.Outcome;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** Keeps {@code inFlight} requests running until {@code total} have completed, from several platform threads. */
final class LoadDriver {
    private LoadDriver() {
    }

    static void run(int inFlight, int total, int threads, Supplier<CompletableFuture<Outcome>> start, Consumer<Outcome> check) throws Exception {
        Semaphore slots = new Semaphore(inFlight);
        AtomicInteger remaining = new AtomicInteger(total);
        AtomicInteger completed = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().name("load-" + t).start(() -> {
                while (remaining.getAndDecrement() > 0) {
                    try {
                        if (!slots.tryAcquire(20, TimeUnit.SECONDS)) {
                            // an error of the run, not only of this thread: the run must not pass on fewer requests
                            synchronized (errors) {
                                errors.add(new IllegalStateException("no request completed for 20 s"));
                            }
                            return;
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                    try {
                        start.get().whenComplete((outcome, error) -> {
                            if (error != null) {
                                synchronized (errors) {
                                    errors.add(error);
                                }
                            } else {
                                check.accept(outcome);
                            }
                            completed.incrementAndGet();
                            slots.release();
                        });
                    } catch (Throwable e) {
                        synchronized (errors) {
                            errors.add(e);
                        }
                        slots.release();
                    }
                }
            }));
        }
        for (Thread worker : workers) {
            worker.join();
        }
        if (!slots.tryAcquire(inFlight, 30, TimeUnit.SECONDS)) {
            throw new AssertionError("requests still in flight 30 s after the last start: " + (total - completed.get()) + " of " + total);
        }
        if (!errors.isEmpty()) {
            throw new AssertionError(errors.size() + " requests failed to start or complete", errors.get(0));
        }
    }
}
