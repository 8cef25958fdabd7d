package dev.apx;

import java.util.concurrent.Callable;

/**
 * Runs what enters Python on a platform thread: CPython's thread state belongs to an OS thread,
 * so the interpreter refuses a virtual thread (which may change carrier). A virtual caller of a
 * blocking API method (load an app, close it) waits for a platform thread that does the work.
 */
final class PlatformThreads {
    private PlatformThreads() {
    }

    static <T> T call(String name, Callable<T> work) {
        if (!Thread.currentThread().isVirtual()) {
            return unchecked(work);
        }
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        Thread thread = Thread.ofPlatform().name(name).start(() -> {
            try {
                result[0] = unchecked(work);
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("apx: interrupted while waiting for " + name, e);
        }
        if (failure[0] instanceof RuntimeException e) {
            throw e;
        }
        if (failure[0] instanceof Error e) {
            throw e;
        }
        @SuppressWarnings("unchecked")
        T value = (T) result[0];
        return value;
    }

    private static <T> T unchecked(Callable<T> work) {
        try {
            return work.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("apx: interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
