package dev.apx.cli;

import dev.apx.asgi.LoopIoHost;
import dev.apx.asgi.lifespan.Lifespan;
import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.StartMode;
import dev.apx.host.AppNotFound;
import dev.apx.host.AppSpec;
import dev.apx.host.HostedApp;
import dev.apx.host.Interface;
import dev.apx.log.Log;
import dev.apx.metrics.Metrics;
import dev.apx.metrics.MetricsConfig;
import dev.apx.python.Interpreter;
import dev.apx.python.PythonException;
import dev.apx.python.PythonInstall;
import dev.apx.server.InheritedSocket;
import dev.apx.server.Server;
import dev.apx.server.api.AppInstance;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.api.IoHost;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.shared.Protocols;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.warmup.WarmupPace;
import dev.apx.supervisor.WorkerLink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One run of the server, in Uvicorn's order: load the app, lifespan startup, bind and serve until
 * SIGINT/SIGTERM, stop accepting, drain in-flight requests (up to the graceful timeout, then cancel
 * them: CancelledError in the app), lifespan shutdown, exit 0. Java owns the signals (Python is embedded without its handlers).
 *
 * <p>The app's own life (import, bridge, lifespan) is {@link HostedApp}'s, as for the Java API: one
 * per Python runtime ({@code --interpreters N}, {@link Runtimes}), each given to the server as one
 * {@link AppInstance}.
 * {@link #start} and {@link #stop} are the two halves of {@link #run} for {@code dev.apx.ApxServer},
 * which serves inside a host's JVM: there no signal handler is installed.
 */
final class Serve {
    private static final Duration CANCELLED_GRACE = Duration.ofSeconds(5);
    private final Main options;
    private final boolean ownsProcess; // the command line: signals end the run
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private Metrics metrics; // null without --metrics
    private Protocols protocols;
    private LogConfig logConfig; // null without --log-config
    private volatile List<HostedApp> hosted; // one per serving runtime, the first in the base namespace until a reload
    private final Object joinLock = new Object(); // runtimes of the start joining the server, against stop
    private List<CompletableFuture<Void>> joins = List.of(); // one per runtime past the first: done once it serves (or failed)
    private CompletableFuture<Void> allServing = CompletableFuture.completedFuture(null);
    private boolean stopping; // guarded by joinLock
    private volatile boolean startFailed; // a runtime past the first failed to load or start: the run ends
    private volatile int exitCode;
    private SpareRuntimes spares; // --reload's next runtimes; null without --reload
    private final List<HostedApp> retiring = new CopyOnWriteArrayList<>(); // replaced by a reload, draining
    private PythonInstall install;
    private AppSpec spec;
    private Server server;
    private volatile Warmup.Background warmup; // --warmup-mode idle's, on the first runtime; null when none runs
    private long pid;

    Serve(Main options, boolean ownsProcess) {
        this.options = options;
        this.ownsProcess = ownsProcess;
    }

    int run() {
        int started = start();
        if (started != 0) {
            return started;
        }
        try {
            stopRequested.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stop(options.timeoutGracefulShutdown == null ? Duration.ofDays(365) : Duration.ofSeconds(options.timeoutGracefulShutdown));
        return exitCode;
    }

    /** Loads the app, runs lifespan startup and binds: 0 once it serves, else the exit code (the reason is logged). */
    int start() {
        WebSocketConfig wsConfig = options.webSockets.config(); // bad flags fail before Python starts
        protocols = options.protocolOptions.protocols(); // and bad TLS files, wrong passwords
        MetricsConfig metricsConfig = options.metrics.config(System.getenv());
        metrics = metricsConfig == null ? null : Metrics.start(metricsConfig);
        if (metrics != null) {
            Log.info("Metrics on http://" + metricsConfig.host() + ":" + metrics.port() + "/metrics"
                    + (metricsConfig.worker() != null ? " (worker " + metricsConfig.worker() + ", for the supervisor's endpoint)" : ""));
            if (options.workerLink != null) {
                options.workerLink.metricsServed(metrics.port()); // the supervisor serves them with the other workers'
            }
        }
        int started;
        try {
            started = start(wsConfig);
        } catch (RuntimeException | Error e) {
            closeResources();
            throw e;
        }
        if (started != 0) {
            closeResources();
        } else if (!ownsProcess) { // a host's JVM: start() returns once every runtime serves
            allServing.join();
            if (startFailed) {
                stop(CANCELLED_GRACE);
                return exitCode;
            }
        }
        return started;
    }

    private int start(WebSocketConfig wsConfig) {
        install = PythonInstall.locate(Optional.ofNullable(options.python), System.getenv());
        Interpreter interpreter = Interpreter.start(install);
        // Uvicorn's order: logging, the env file, the app (whose import may set logger levels)
        logConfig = options.logConfig == null ? null
                : LogConfig.apply(interpreter, options.logConfig, options.logLevel, options.accessLog);
        spec = appSpec();
        Runtimes.Work<HostedApp> startOne = runtime -> {
            HostedApp app = HostedApp.load(runtime, spec);
            app.start(bridge -> { });
            return app;
        };
        // runtimes past the first import on the cores the first's import leaves idle, the rest once it has; each
        // joins the server when it is ready (docs/interpreters.md, "Serving on N runtimes")
        int early = Math.min(options.interpreters - 1, Math.max(0, Runtime.getRuntime().availableProcessors() - 1));
        List<CompletableFuture<HostedApp>> importing = Runtimes.start(install, early, startOne);
        try {
            hosted = List.of(HostedApp.load(interpreter, spec));
        } catch (RuntimeException e) {
            throw firstImportFailed(e, importing);
        }
        if (logConfig != null) {
            logConfig.refreshThreshold();
        }
        System.err.printf("apx: loaded %s = %s with Python %s (%s)%n", options.app, hosted.getFirst().description(), install.version(),
                install.library());
        List<CompletableFuture<HostedApp>> more = new ArrayList<>(Runtimes.told(1, importing));
        more.addAll(Runtimes.startMore(install, 1 + early, options.interpreters - 1 - early, startOne));
        pid = ProcessHandle.current().pid();
        Log.info("Started server process [" + pid + "]");

        if (ownsProcess) {
            Signals.handle("INT", stopRequested::countDown);
            Signals.handle("TERM", stopRequested::countDown);
        }

        ServerConfig config = options.serverConfig().withProtocols(protocols);
        Served served;
        try {
            served = hosted.getFirst().kind() == Interface.WSGI ? serveWsgi(config) : serveAsgi(config, wsConfig);
        } catch (Lifespan.StartupFailed e) {
            Log.error(e.getMessage());
            Log.error("Application startup failed. Exiting.");
            return 3;
        } catch (InterruptedException e) {
            return 1;
        } catch (BindFailed e) {
            shutDownAfterFailedBind(more); // as Uvicorn: the app's startup ran, so its shutdown runs
            return 3;
        }
        server = served.server();
        if (metrics != null) {
            metrics.watch(server);
        }
        // the idle warm-up waits for every runtime: on a small machine it would take the CPU their imports need
        // (docs/interpreters.md)
        allServing = join(more).thenRun(() -> startIdleWarmup(served));
        if (options.reload && options.workerLink != null && options.ioMode != IoMode.LOOP) {
            spares = new SpareRuntimes(install, spec.env(), userDirs());
            allServing.thenRun(() -> spares.prepare(hosted.size(), hosted.getFirst().interpreter()));
        }
        WorkerLink link = options.workerLink;
        if (link != null) { // the supervisor said where it runs
            link.supervisorGone().thenRun(stopRequested::countDown);
            link.onReload(this::reloadInProcess); // --reload's changes, and SIGHUP to a --workers supervisor
            allServing.thenRun(() -> {
                if (!startFailed) {
                    link.ready(served.onLoop()); // ready means every runtime serves
                }
            });
        } else if (options.fd != null) {
            Log.info("apx running on socket " + options.fd + (server.port() > 0 ? " (port " + server.port() + ")" : "") + " (Press CTRL+C to quit)");
        } else if (config.uds() != null) {
            Log.info("apx running on unix socket " + config.uds() + " (Press CTRL+C to quit)");
        } else {
            String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
            Log.info("apx running on " + (protocols.tls() != null ? "https" : "http") + "://" + host + ":" + server.port() + " (Press CTRL+C to quit)");
        }
        if (protocols.tls() != null) {
            Log.info("TLS by " + protocols.tls().engineName() + ", ALPN " + (protocols.http2().enabled() ? "h2, http/1.1" : "http/1.1"));
        }
        server.requestLimitReached().thenRun(() -> {
            Log.warning("Maximum request limit of " + config.limits().maxRequests() + " exceeded. Terminating process.");
            if (link != null) {
                link.recycle(); // it serves on until its replacement does, then gets SIGTERM
            } else {
                stopRequested.countDown();
            }
        });
        return 0;
    }

    /**
     * {@code --reload} without a new process: the app's new code in as many fresh runtimes (glibc
     * namespaces of their own), each imported and through lifespan startup before the server switches
     * new connections to it; the old runtimes' connections finish as at a shutdown, then their lifespan
     * shutdown runs. New code that fails to import or start is logged and the old code serves on. Returns
     * the answer for the supervisor ({@link WorkerLink}); runs on the link's reload thread, one at a time.
     */
    private synchronized String reloadInProcess() {
        allServing.join(); // the start's runtimes first
        stopWarmup(); // it runs on the first runtime, which this retires
        List<HostedApp> old = hosted;
        List<Interpreter> spare = spares != null ? spares.take(old.size()) : List.of();
        if (startFailed || spare.isEmpty() && (Interpreter.isolatedRuntimesLeft() < old.size() || options.ioMode == IoMode.LOOP)) {
            // no namespaces left for a whole new set; or the sockets run on the old runtime's loop thread
            Log.debug("reload: by restart (" + Interpreter.isolatedRuntimesLeft() + " runtimes fit, --io " + options.ioMode + ")");
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
            loading.forEach(f -> f.thenAccept(Serve::closeQuietly));
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
        for (int i = 0; metrics != null && i < fresh.size(); i++) { // each fresh runtime takes the slot of the one it replaces
            metrics.watch(i, fresh.get(i).interpreter(), fresh.get(i).bridge());
        }
        List<CompletableFuture<Void>> drained = new ArrayList<>();
        for (int i = 0; i < old.size(); i++) {
            drained.add(server.replace(old.get(i).instance(), fresh.get(i).instance()));
        }
        retiring.addAll(old);
        hosted = fresh;
        Log.info(String.format("Reloaded in %.0f ms: the new code serves in %d fresh runtime(s)%s (%d more fit in this process)",
                (System.nanoTime() - started) / 1e6, fresh.size(), spare.isEmpty() ? "" : " started ahead",
                Interpreter.isolatedRuntimesLeft()));
        Thread.ofPlatform().name("apx-retire").start(() -> retire(old, drained));
        prepareSpares(fresh);
        return WorkerLink.RELOADED;
    }

    /** --reload: the next reload's runtimes, with what {@code serving}'s code imports from installed places. */
    private void prepareSpares(List<HostedApp> serving) {
        if (spares != null) {
            spares.prepare(serving.size(), serving.getFirst().interpreter());
        }
    }

    /** Where the app's own code is: never imported ahead into a spare runtime. */
    private List<Path> userDirs() {
        List<Path> dirs = new ArrayList<>(options.reloadDirs());
        dirs.add(options.appDir);
        dirs.add(Path.of("").toAbsolutePath());
        return dirs;
    }

    /**
     * Runtimes 1..N-1 of the start join the server as each becomes ready; the future completes when
     * all have (or one failed: then the run ends, as a failed start does, with its exit code).
     */
    private CompletableFuture<Void> join(List<CompletableFuture<HostedApp>> more) {
        long firstServing = System.nanoTime();
        List<CompletableFuture<Void>> joined = new ArrayList<>();
        for (CompletableFuture<HostedApp> runtime : more) {
            joined.add(runtime.handle((app, failure) -> {
                joined(app, failure);
                return null;
            }));
        }
        synchronized (joinLock) {
            joins = joined;
        }
        return CompletableFuture.allOf(joined.toArray(CompletableFuture[]::new)).thenRun(() -> {
            boolean ending;
            synchronized (joinLock) {
                ending = stopping || startFailed;
            }
            if (!more.isEmpty() && !ending) {
                Log.info(String.format("Serving in %d runtimes, the last ready %.0f ms after the first", hosted.size(),
                        (System.nanoTime() - firstServing) / 1e6));
            }
        });
    }

    private void joined(HostedApp app, Throwable failure) {
        synchronized (joinLock) {
            if (failure == null && !stopping && !startFailed) {
                if (metrics != null) {
                    metrics.watch(hosted.size(), app.interpreter(), app.bridge()); // its slot: its place in hosted
                }
                server.add(app.instance());
                List<HostedApp> serving = new ArrayList<>(hosted);
                serving.add(app);
                hosted = serving;
                return;
            }
            if (failure != null && !startFailed && !stopping) {
                startFailed = true;
                exitCode = startFailure(Runtimes.unwrap(failure));
                stopRequested.countDown();
            }
        }
        if (app != null) { // the run is ending: this one never served
            try {
                app.shutdown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Logs why a runtime past the first could not start, as a failed start of the first is; its exit code. */
    private int startFailure(Throwable cause) {
        switch (cause) {
            case Lifespan.StartupFailed e -> {
                Log.error(e.getMessage());
                Log.error("Application startup failed. Exiting.");
                return 3;
            }
            case AppNotFound e -> {
                System.err.println("apx: error: cannot load app '" + options.app + "': " + e.getMessage());
                return 3;
            }
            case PythonException e -> {
                System.err.print(e.pythonTraceback());
                System.err.println("apx: error: cannot load app '" + options.app + "': " + e.getMessage());
                return 1;
            }
            default -> {
                System.err.println("apx: error: " + cause.getMessage());
                return 1;
            }
        }
    }

    /** Waits for the replaced runtimes' connections (up to the graceful timeout, else 30 s), then ends their app's life. */
    private void retire(List<HostedApp> old, List<CompletableFuture<Void>> drained) {
        long seconds = options.timeoutGracefulShutdown == null ? 30 : options.timeoutGracefulShutdown;
        try {
            CompletableFuture.allOf(drained.toArray(CompletableFuture[]::new)).get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            old.forEach(app -> server.closeConnectionsOf(app.instance()));
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

    /** The bound port (after {@link #start}). */
    int port() {
        return server.port();
    }

    /** Done when something asked the run to end: a signal, the request limit, the supervisor gone. */
    CountDownLatch stopRequested() {
        return stopRequested;
    }

    /** Stops accepting, drains for up to {@code grace} (then cancels), closes, runs lifespan shutdown. */
    void stop(Duration grace) {
        List<CompletableFuture<Void>> pending;
        synchronized (joinLock) {
            stopping = true; // a runtime still starting is shut down as it arrives
            pending = joins;
        }
        long deadline = System.nanoTime() + CANCELLED_GRACE.toNanos(); // one still importing is not waited for longer
        int abandoned = 0;
        for (CompletableFuture<Void> join : pending) {
            try {
                join.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                abandoned++;
            }
        }
        if (abandoned > 0) {
            Log.warning(abandoned + " runtime(s) still starting are left behind: the process ends without them");
        }
        try {
            stopWarmup();
            Log.info("Shutting down");
            server.stopAccepting();
            if (!server.drain(grace)) {
                Log.error("Cancel " + server.inFlight() + " running task(s), timeout graceful shutdown exceeded");
                server.cancelInFlight();
                server.drain(CANCELLED_GRACE); // their 500s or closes go out; an app that ignores the cancel is not waited for
            }
            server.close();
            for (HostedApp app : hosted) {
                app.shutdown();
            }
            for (HostedApp app : retiring) {
                app.shutdown();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            Log.info("Finished server process [" + pid + "]");
            closeResources();
        }
    }

    /**
     * Runtime 0 failed to load the app while runtimes 1.. imported it too: none is left running as the process
     * ends (each that started its app shuts it down), and when one of them loaded it, runtime 0's failure is
     * told as a second copy's (the copies raced for something the process can hold once).
     */
    private static RuntimeException firstImportFailed(RuntimeException failure, List<CompletableFuture<HostedApp>> importing) {
        Runtimes.settle(importing, CANCELLED_GRACE);
        int loaded = 0;
        for (int i = 0; i < importing.size(); i++) {
            CompletableFuture<HostedApp> runtime = importing.get(i);
            if (!runtime.isDone() || runtime.isCompletedExceptionally()) {
                continue; // failed too, or still importing after the grace: the process ends without it
            }
            HostedApp app = runtime.join();
            loaded = loaded == 0 ? i + 1 : loaded;
            try {
                app.shutdown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return loaded > 0 && failure instanceof PythonException python ? Runtimes.importedElsewhere(0, loaded, python) : failure;
    }

    /** --warmup-mode idle's warm-up, unless the run is already ending. */
    private void startIdleWarmup(Served served) {
        if (served.idleWarmup() == null) {
            return;
        }
        synchronized (joinLock) { // against stop(), which sets stopping first and then stops the warm-up
            if (!stopping && !startFailed) {
                warmup = Warmup.whileIdle(served.server(), options.warmup, served.idleWarmup());
            }
        }
    }

    private void stopWarmup() {
        Warmup.Background running = warmup;
        if (running != null) {
            warmup = null;
            try {
                running.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void closeResources() {
        if (metrics != null) {
            metrics.close();
        }
        if (logConfig != null) {
            logConfig.flush(); // the last lines, queued by other threads
        }
    }

    private AppSpec appSpec() {
        Map<String, String> env = Map.of();
        if (options.envFile != null) {
            try {
                env = EnvFile.read(options.envFile);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read --env-file " + options.envFile, e);
            }
        }
        BridgeConfig bridgeConfig = BridgeConfig.defaults().withLoop(options.loop)
                .withSlowDriveMillis(Math.round(options.slowCallbackDuration * 1000))
                .withGcThreshold(options.gcThreshold);
        if (options.ioMode == IoMode.LOOP) {
            bridgeConfig = bridgeConfig.withStartMode(StartMode.LOOP); // requests arrive on the loop thread: no step lock
        }
        return new AppSpec(options.app, options.appDir, options.factory, options.appInterface, options.lifespan, env,
                bridgeConfig, options.asgiConfig(), options.wsgiConfig());
    }

    /**
     * A started server, where the supervisor's health check is answered (the event loop: a blocked loop
     * does not answer), and the --warmup-mode idle warm-up to start once every runtime serves (null: none).
     */
    private record Served(Server server, Consumer<Runnable> onLoop, Consumer<WarmupPace> idleWarmup) {
    }

    /** The bind failed; it is logged. */
    private static final class BindFailed extends Exception {
    }

    private Served serveAsgi(ServerConfig config, WebSocketConfig wsConfig) throws Lifespan.StartupFailed, InterruptedException, BindFailed {
        HostedApp first = hosted.getFirst();
        first.start(bridge -> {
            if (metrics != null) {
                metrics.watch(0, first.interpreter(), bridge); // slot 0: its series as interpreter="0"
            }
        });
        Bridge bridge = first.bridge();
        // --io loop: the warm-up server's sockets would run on the same loop as the real one's, whose hooks are one set
        boolean before = options.warmupMode == WarmupMode.BEFORE || options.ioMode == IoMode.LOOP;
        if (options.warmup > 0 && before) {
            Warmup.asgi(first.interpreter(), bridge, config, options.asgiConfig(), wsConfig,
                    options.ioMode == IoMode.LOOP ? new LoopIoHost(bridge) : null, options.warmup, WarmupPace.ALWAYS);
        }
        Server server = bind(config, List.of(first.instance()), wsConfig, options.ioMode == IoMode.LOOP ? new LoopIoHost(bridge) : null);
        Consumer<WarmupPace> idleWarmup = options.warmup > 0 && !before
                ? pace -> Warmup.asgi(first.interpreter(), bridge, config, options.asgiConfig(), wsConfig, null, options.warmup, pace)
                : null;
        return new Served(server, task -> { // healthy when every runtime's loop answers: a blocked one fails the worker's check
            AtomicInteger waiting = new AtomicInteger(hosted.size());
            for (HostedApp app : hosted) {
                app.bridge().runOnLoop(gil -> {
                    if (waiting.decrementAndGet() == 0) {
                        task.run();
                    }
                });
            }
        }, idleWarmup);
    }

    /**
     * WSGI: no event loop, no lifespan, no WebSockets (as Uvicorn's --interface wsgi); Netty's own
     * I/O threads whatever --io says, since there is no asyncio loop to host them.
     */
    private Served serveWsgi(ServerConfig config) throws BindFailed, Lifespan.StartupFailed, InterruptedException {
        HostedApp first = hosted.getFirst();
        boolean before = options.warmupMode == WarmupMode.BEFORE;
        if (options.warmup > 0 && before) {
            Warmup.wsgi(first.interpreter(), config, options.wsgiConfig(), options.warmup, WarmupPace.ALWAYS);
        }
        first.start(bridge -> { });
        if (metrics != null) {
            metrics.watch(0, first.interpreter(), null); // slot 0: its GIL and GC series as interpreter="0"
        }
        Server server = bind(config, List.of(first.instance()), null, null);
        Consumer<WarmupPace> idleWarmup = options.warmup > 0 && !before
                ? pace -> Warmup.wsgi(first.interpreter(), config, options.wsgiConfig(), options.warmup, pace)
                : null;
        return new Served(server, Runnable::run, idleWarmup); // no loop to block: answer health checks at once
    }

    /** Lifespan shutdown of every runtime whose startup ran, before the process ends on a failed bind. */
    private void shutDownAfterFailedBind(List<CompletableFuture<HostedApp>> more) {
        try {
            hosted.getFirst().shutdown();
            Runtimes.settle(more, CANCELLED_GRACE);
            for (CompletableFuture<HostedApp> runtime : more) {
                if (runtime.isDone() && !runtime.isCompletedExceptionally()) {
                    runtime.join().shutdown();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The OS's words for a failed bind ("Address already in use"), without Netty's wrapping. */
    static String bindError(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return message.replaceFirst("^\\w+\\(\\.\\.\\) failed(?: with error\\(-?\\d+\\))?: ", "");
    }

    /** Binds {@code config}'s address, or serves on the socket the supervisor or {@code --fd} hands over. */
    private Server bind(ServerConfig config, List<AppInstance> apps, WebSocketConfig wsConfig, IoHost host) throws BindFailed {
        WorkerLink link = options.workerLink;
        try {
            InheritedSocket inherited = link != null ? link.socket() : options.fd != null ? InheritedSocket.of(options.fd) : null;
            return Server.start(config, apps, wsConfig, host, inherited, metrics != null ? metrics.http() : HttpObserver.NONE);
        } catch (RuntimeException e) {
            String where = options.fd != null ? "--fd " + options.fd : config.uds() != null ? config.uds().toString() : config.host() + ":" + config.port();
            Log.error("cannot " + (link != null ? "serve on the supervisor's socket" : "bind " + where) + ": " + bindError(e));
            throw new BindFailed();
        }
    }
}
