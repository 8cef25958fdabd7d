package dev.apx.serve;

import dev.apx.python.Interpreter;
import dev.apx.python.PythonException;
import dev.apx.python.PythonInstall;
import dev.apx.python.PythonSetupException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runtimes beyond the first ({@code --interpreters N}, a reload's fresh ones, {@code --reload}'s
 * spares): each a separate CPython in a glibc namespace of its own (docs/interpreters.md), started
 * and given its work on a thread of its own, so the apps import in parallel (each on its own GIL).
 */
final class Runtimes {
    private Runtimes() {
    }

    /** What a runtime's thread does once it runs: may throw anything (the future fails with it). */
    interface Work<T> {
        T apply(Interpreter interpreter) throws Exception;
    }

    /** Starts {@code count} runtimes of {@code install}, each on a thread of its own that then runs {@code work}: one future each, in order. */
    static <T> List<CompletableFuture<T>> start(PythonInstall install, int count, Work<T> work) {
        List<CompletableFuture<T>> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            started.add(onThread("apx-runtime-start", () -> work.apply(Interpreter.startIsolated(install))));
        }
        return started;
    }

    /** Runs {@code work} in each of {@code runtimes} (already started: spares) on a thread of its own: one future each, in order. */
    static <T> List<CompletableFuture<T>> in(List<Interpreter> runtimes, Work<T> work) {
        List<CompletableFuture<T>> results = new ArrayList<>();
        for (Interpreter runtime : runtimes) {
            results.add(onThread("apx-runtime-load", () -> work.apply(runtime)));
        }
        return results;
    }

    /**
     * The server's start: {@code count} more runtimes, numbered from {@code first} (the base runtime is 0),
     * with the app loaded in each; see {@link #told}.
     */
    static <T> List<CompletableFuture<T>> startMore(PythonInstall install, int first, int count, Work<T> load) {
        return told(first, start(install, count, load));
    }

    /**
     * {@code started}, runtimes numbered from {@code first}, once the app has loaded in runtime 0: a failure to
     * load in runtime k is told as what it is here (runtime 0 holds a copy, so it is the second copy that failed).
     */
    static <T> List<CompletableFuture<T>> told(int first, List<CompletableFuture<T>> started) {
        List<CompletableFuture<T>> told = new ArrayList<>();
        for (int i = 0; i < started.size(); i++) {
            int runtime = first + i;
            told.add(started.get(i).exceptionallyCompose(e -> CompletableFuture.failedFuture(
                    unwrap(e) instanceof PythonException python ? importedElsewhere(runtime, 0, python) : unwrap(e))));
        }
        return told;
    }

    /** Waits up to {@code timeout} for each of {@code results} to end, however it ends. */
    static void settle(List<? extends CompletableFuture<?>> results, java.time.Duration timeout) {
        try {
            CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // one failed or is slow: the caller looks at each
        }
    }

    /** Every result, in order, once all are in; the first failure is thrown as what it is. */
    static <T> List<T> all(List<CompletableFuture<T>> results) {
        List<T> all = new ArrayList<>();
        for (CompletableFuture<T> result : results) {
            try {
                all.add(result.get());
            } catch (ExecutionException e) {
                throw unchecked(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the runtimes started");
            }
        }
        return all;
    }

    /** A failure of {@link #start}'s work, as a runtime exception to throw or log. */
    static RuntimeException unchecked(Throwable failure) {
        return switch (unwrap(failure)) {
            case RuntimeException runtime -> runtime;
            case Throwable other -> new IllegalStateException("a runtime failed to start: " + other, other);
        };
    }

    static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException || failure instanceof ExecutionException ? failure.getCause() : failure;
    }

    private static <T> CompletableFuture<T> onThread(String name, Callable<T> body) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofPlatform().name(name).start(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    /**
     * The app imported in runtime {@code loaded} and failed in runtime {@code failed}: what differs is that the
     * process already holds one copy, so name that (and the static TLS remedy when glibc ran out of it).
     */
    static PythonSetupException importedElsewhere(int failed, int loaded, PythonException e) {
        System.err.print(e.pythonTraceback());
        String cause = e.getMessage().contains("static TLS")
                ? "glibc's static TLS is used up; start the JVM with GLIBC_TUNABLES=glibc.rtld.optional_static_tls=1024 (bin/apx sets it)"
                : "it imported in runtime " + loaded + ", so something it loads (a C extension or a library) cannot be loaded twice in one"
                + " process; use --workers instead";
        return new PythonSetupException("cannot load the app in runtime " + failed + " of --interpreters: " + e.getMessage() + " (" + cause + ")");
    }
}
