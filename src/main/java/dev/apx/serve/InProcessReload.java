package dev.apx.serve;

import dev.apx.asgi.lifespan.Lifespan;
import dev.apx.config.ApxConfig;
import dev.apx.config.IoMode;
import dev.apx.host.AppSpec;
import dev.apx.host.HostedApp;
import dev.apx.log.Log;
import dev.apx.metrics.Metrics;
import dev.apx.python.Interpreter;
import dev.apx.python.PythonException;
import dev.apx.python.PythonInstall;
import dev.apx.supervisor.WorkerLink;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A worker's reload without a new process ({@code --reload}'s changes, SIGHUP to a {@code --workers}
 * supervisor): the app's new code in as many fresh runtimes (glibc namespaces of their own), each
 * imported and through lifespan startup before the server switches new connections to it; the old
 * runtimes' connections finish as at a shutdown, then their lifespan shutdown runs. New code that fails
 * to import or start is logged and the old code serves on.
 */
final class InProcessReload {
    private final Serve run;
    private final ApxConfig config;
    private final PythonInstall install;
    private final AppSpec spec;
    private final SpareRuntimes spares; // --reload's next runtimes; null without --reload
    private final List<HostedApp> retiring = new CopyOnWriteArrayList<>(); // replaced by a reload, draining

    InProcessReload(Serve run, ApxConfig config, PythonInstall install, AppSpec spec) {
        this.run = run;
        this.config = config;
        this.install = install;
        this.spec = spec;
        boolean spare = config.workers().reload() && config.runtime().io() != IoMode.LOOP;
        this.spares = spare ? new SpareRuntimes(install, spec.env(), userDirs()) : null;
    }

    /** --reload: the first reload's runtimes, started once every runtime of the start serves. */
    void prepareFirstSpares() {
        if (spares != null) {
            run.allServing().thenRun(() -> prepareSpares(run.hosted()));
        }
    }

    /**
     * Reloads; the answer for the supervisor ({@link WorkerLink}). Runs on the link's reload thread, one
     * at a time.
     */
    synchronized String reload() {
        run.allServing().join(); // the start's runtimes first
        run.stopWarmup(); // it runs on the first runtime, which this retires
        List<HostedApp> old = run.hosted();
        List<Interpreter> spare = spares != null ? spares.take(old.size()) : List.of();
        if (run.startFailed() || spare.isEmpty() && (Interpreter.isolatedRuntimesLeft() < old.size() || config.runtime().io() == IoMode.LOOP)) {
            // no namespaces left for a whole new set; or the sockets run on the old runtime's loop thread
            Log.debug("reload: by restart (" + Interpreter.isolatedRuntimesLeft() + " runtimes fit, --io " + config.runtime().io() + ")");
            return WorkerLink.RELOAD_BY_RESTART;
        }
        long started = System.nanoTime();
        Runtimes.Work<HostedApp> load = runtime -> HostedApp.load(runtime, spec);
        List<CompletableFuture<HostedApp>> loading = spare.isEmpty() ? Runtimes.start(install, old.size(), load) : Runtimes.in(spare, load);
        List<HostedApp> fresh;
        try {
            fresh = Runtimes.all(loading);
        } catch (RuntimeException e) {
            if (e instanceof PythonException python) {
                System.err.print(python.pythonTraceback());
            }
            Log.error("Reload: the new code failed to load, the previous code keeps serving:\n" + e.getMessage());
            loading.forEach(f -> f.thenAccept(InProcessReload::closeQuietly));
            prepareSpares(old);
            return WorkerLink.RELOAD_FAILED;
        }
        try {
            for (HostedApp app : fresh) {
                app.start(bridge -> { });
            }
        } catch (Lifespan.StartupFailed | InterruptedException | RuntimeException e) {
            Log.error("Reload: the new code's startup failed, the previous code keeps serving: " + e.getMessage());
            for (HostedApp app : fresh) {
                closeQuietly(app);
            }
            prepareSpares(old);
            return WorkerLink.RELOAD_FAILED;
        }
        Metrics metrics = run.metrics();
        for (int i = 0; metrics != null && i < fresh.size(); i++) { // each fresh runtime takes the slot of the one it replaces
            metrics.watch(i, fresh.get(i).interpreter(), fresh.get(i).bridge());
        }
        List<CompletableFuture<Void>> drained = new ArrayList<>();
        for (int i = 0; i < old.size(); i++) {
            drained.add(run.server().replace(old.get(i).instance(), fresh.get(i).instance()));
        }
        retiring.addAll(old);
        run.serving(fresh);
        Log.info(String.format("Reloaded in %.0f ms: the new code serves in %d fresh runtime(s)%s (%d more fit in this process)",
                (System.nanoTime() - started) / 1e6, fresh.size(), spare.isEmpty() ? "" : " started ahead",
                Interpreter.isolatedRuntimesLeft()));
        Thread.ofPlatform().name("apx-retire").start(() -> retire(old, drained));
        prepareSpares(fresh);
        return WorkerLink.RELOADED;
    }

    /** At the run's stop: lifespan shutdown of the runtimes a reload replaced that are still draining. */
    void shutdownRetiring() throws InterruptedException {
        for (HostedApp app : retiring) {
            app.shutdown();
        }
    }

    /** --reload: the next reload's runtimes, with what {@code serving}'s code imports from installed places. */
    private void prepareSpares(List<HostedApp> serving) {
        if (spares != null) {
            spares.prepare(serving.size(), serving.getFirst().interpreter());
        }
    }

    /** Where the app's own code is: never imported ahead into a spare runtime. */
    private List<Path> userDirs() {
        List<Path> dirs = new ArrayList<>(ReloadDirs.watched(config.workers().reloadDirs()));
        dirs.add(config.app().appDir());
        dirs.add(Path.of("").toAbsolutePath());
        return dirs;
    }

    /** Waits for the replaced runtimes' connections (up to the graceful timeout, else 30 s), then ends their app's life. */
    private void retire(List<HostedApp> old, List<CompletableFuture<Void>> drained) {
        Integer graceful = config.limits().gracefulShutdownTimeout();
        long seconds = graceful == null ? 30 : graceful;
        try {
            CompletableFuture.allOf(drained.toArray(CompletableFuture[]::new)).get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            old.forEach(app -> run.server().closeConnectionsOf(app.instance()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            // drained futures only complete normally
        }
        for (HostedApp app : old) {
            closeQuietly(app);
            retiring.remove(app);
        }
    }

    private static void closeQuietly(HostedApp app) {
        try {
            app.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            Log.error("Reload: a replaced runtime did not close cleanly: " + e.getMessage());
        }
    }
}
