package dev.apx;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of a call into Python ({@link PythonFunction#call}, {@link PythonApp#call},
 * {@link PythonApp#stream}): a {@link CompletableFuture} whose every way of giving up reaches the
 * Python side. {@link #cancel}, {@link #orTimeout} expiring, the caller's {@link #complete} and
 * {@link #completeExceptionally}, {@link #completeOnTimeout} firing, and, unlike a plain
 * {@code CompletableFuture}, {@link #get(long, TimeUnit)} expiring: each cancels the Python task
 * while it runs, which sees {@code asyncio.CancelledError} at its next {@code await}. A value the
 * caller completes the future with replaces the call's result, which is dropped.
 *
 * <p>{@code get(timeout)} cancels the call when it times out: the caller that stops waiting is
 * taken to stop wanting the result. To wait for a while and keep the call running, wait on a
 * dependent future ({@code future.thenApply(x -> x).get(timeout)}) or use {@link #join()}.
 * Dependent futures ({@code thenApply}, {@code copy}) are plain {@code CompletableFuture}s:
 * cancelling one of them does not reach Python; cancel this one.
 *
 * @param <T> the result's type
 */
public final class PythonFuture<T> extends CompletableFuture<T> {
    /**
     * Set before apx completes the future with the call's own result, so that this completion is
     * not taken for a caller giving up; a caller's {@code complete(value)} leaves it unset.
     */
    private volatile boolean resultArrived;

    PythonFuture() {
    }

    /** Completes the future with the call's own result, which cancels nothing. */
    boolean completeWithResult(T value) {
        resultArrived = true;
        return super.complete(value);
    }

    /**
     * Runs {@code cancelCall} once the future completes with anything but the call's own result:
     * the caller gave up (exceptionally, or with a value of its own). After the call's own failure
     * it runs too, and must then change nothing.
     */
    void onGivingUp(Runnable cancelCall) {
        whenComplete((value, error) -> {
            if (error != null || !resultArrived) {
                cancelCall.run();
            }
        });
    }

    /**
     * Waits up to {@code timeout} for the result; when it does not come in time, cancels the call
     * (as {@link #cancel}) and throws.
     *
     * @param timeout how long to wait
     * @param unit    the unit of {@code timeout}
     * @return the result
     * @throws TimeoutException     the result did not come in time (the call is cancelled)
     * @throws ExecutionException   the call failed; its cause says why ({@link PythonCallException} for a Python exception)
     * @throws InterruptedException the waiting thread was interrupted (the call goes on)
     * @throws java.util.concurrent.CancellationException the call was cancelled
     */
    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return super.get(timeout, unit);
        } catch (TimeoutException e) {
            cancel(true);
            throw e;
        }
    }
}
