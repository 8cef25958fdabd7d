package dev.apx.serve;

import dev.apx.host.HostedApp;
import dev.apx.log.Log;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonInstall;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * {@code --reload}'s next runtimes, started ahead while the current code serves: as many as it
 * serves in, each in a new namespace with the {@code --env-file} set and the installed modules the
 * app imported (stdlib, site-packages; never the app's own: {@code _apx/_preload.py}) imported
 * already. A reload then only pays for the app's own modules and its lifespan; a fresh runtime and
 * FastAPI's import cost more than Uvicorn's whole restart (docs/interpreters.md).
 */
final class SpareRuntimes {
    private final PythonInstall install;
    private final Map<String, String> env;
    private final List<String> userDirs;
    private List<CompletableFuture<Interpreter>> ready = List.of();

    SpareRuntimes(PythonInstall install, Map<String, String> env, List<Path> userDirs) {
        this.install = install;
        this.env = env;
        this.userDirs = userDirs.stream().map(d -> d.toAbsolutePath().normalize().toString()).toList();
    }

    /**
     * Starts {@code count} spares in the background, importing what {@code model} (a runtime with the
     * app loaded) imported from installed locations; none when the namespaces left cannot hold them
     * (the next reload then finds none and restarts the worker).
     */
    synchronized void prepare(int count, Interpreter model) {
        if (Interpreter.isolatedRuntimesLeft() < count) {
            ready = List.of();
            return;
        }
        long started = System.nanoTime();
        List<String> modules = installedModules(model);
        ready = Runtimes.start(install, count, runtime -> {
            HostedApp.setEnvironment(runtime, env);
            long loaded = runtime.call(gil -> {
                try (PyRef preload = gil.importModule("_apx._preload"); PyRef n = preload.callMethod(gil, "import_all", modules)) {
                    return (Long) n.toJava(gil);
                }
            });
            Log.debug(String.format("reload: a spare runtime is ready in %.0f ms, %d of %d installed modules imported ahead",
                    (System.nanoTime() - started) / 1e6, loaded, modules.size()));
            return runtime;
        });
    }

    /** The prepared spares (waiting for them if still starting), or empty when there are not {@code count} good ones; each set is given once. */
    synchronized List<Interpreter> take(int count) {
        List<CompletableFuture<Interpreter>> taken = ready;
        ready = List.of();
        if (taken.size() != count) {
            return List.of();
        }
        List<Interpreter> runtimes = new ArrayList<>();
        for (CompletableFuture<Interpreter> spare : taken) {
            try {
                runtimes.add(spare.get());
            } catch (ExecutionException e) {
                Log.warning("reload: a spare runtime failed to start, starting fresh ones instead: " + Runtimes.unwrap(e.getCause()));
                return List.of();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return List.of();
            }
        }
        return runtimes;
    }

    @SuppressWarnings("unchecked")
    private List<String> installedModules(Interpreter model) {
        return model.call(gil -> {
            try (PyRef preload = gil.importModule("_apx._preload"); PyRef names = preload.callMethod(gil, "installed_modules", userDirs)) {
                return List.copyOf((List<String>) names.toJava(gil));
            }
        });
    }
}
