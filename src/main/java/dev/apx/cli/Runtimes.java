package dev.apx.cli;

import dev.apx.python.Interpreter;
import dev.apx.python.PythonException;
import dev.apx.python.PythonInstall;
import dev.apx.python.PythonSetupException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * The runtimes of {@code --interpreters N} beyond the first: each a separate CPython in a glibc
 * namespace of its own (docs/interpreters.md), started and given the app on a thread of its own,
 * so the apps import in parallel (each on its own GIL).
 */
final class Runtimes {
    private Runtimes() {
    }

    /** Starts {@code count} more runtimes of {@code install} and runs {@code load} in each; the first failure is thrown. */
    static <T> List<T> startMore(PythonInstall install, int count, Function<Interpreter, T> load) {
        List<CompletableFuture<T>> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            CompletableFuture<T> result = new CompletableFuture<>();
            int runtime = i + 1;
            Thread.ofPlatform().name("apx-runtime-start-" + runtime).start(() -> {
                try {
                    Interpreter interpreter = Interpreter.startIsolated(install);
                    try {
                        result.complete(load.apply(interpreter));
                    } catch (PythonException e) {
                        result.completeExceptionally(secondImportFailed(runtime, e));
                    }
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
            started.add(result);
        }
        List<T> loaded = new ArrayList<>();
        for (CompletableFuture<T> result : started) {
            try {
                loaded.add(result.get());
            } catch (ExecutionException e) {
                throw switch (e.getCause()) {
                    case PythonSetupException setup -> setup;
                    case PythonException python -> python;
                    case RuntimeException other -> other;
                    default -> new IllegalStateException("a runtime failed to start: " + e.getCause(), e.getCause());
                };
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the runtimes started");
            }
        }
        return loaded;
    }

    /**
     * The app imported in the first runtime and failed in another: what differs is that the process
     * already holds one copy, so name that (and the static TLS remedy when glibc ran out of it).
     */
    private static PythonSetupException secondImportFailed(int runtime, PythonException e) {
        System.err.print(e.pythonTraceback());
        String cause = e.getMessage().contains("static TLS")
                ? "glibc's static TLS is used up; start the JVM with GLIBC_TUNABLES=glibc.rtld.optional_static_tls=1024 (bin/apx sets it)"
                : "it imported in the first runtime, so something it loads (a C extension or a library) cannot be loaded twice in one"
                + " process; use --workers instead";
        return new PythonSetupException("cannot load the app in runtime " + runtime + " of --interpreters: " + e.getMessage() + " (" + cause + ")");
    }
}
