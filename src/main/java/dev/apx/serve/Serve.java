package dev.apx.serve;

import dev.apx.asgi.lifespan.Lifespan;
import dev.apx.config.ApxConfig;
import dev.apx.config.Interface;
import dev.apx.host.AppLoader;
import dev.apx.host.AppSpec;
import dev.apx.host.HostedApp;
import dev.apx.log.Log;
import dev.apx.metrics.Metrics;
import dev.apx.metrics.MetricsConfig;
import dev.apx.python.Interpreter;
import dev.apx.python.PythonInstall;
import dev.apx.server.Server;
import dev.apx.server.api.AppInstance;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.shared.ExtraHeaders;
import dev.apx.server.shared.Protocols;
import dev.apx.server.shared.ServerConfig;
import dev.apx.supervisor.WorkerLink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One run of the server, in Uvicorn's order: load the app, lifespan startup, bind and serve until
 * asked to stop (SIGINT/SIGTERM on the command line), stop accepting, drain in-flight requests (up to
 * the graceful timeout, then cancel them: CancelledError in the app), lifespan shutdown.
 *
 * <p>The app's own life (import, bridge, lifespan) is {@link HostedApp}'s, as for the Java API: one
 * per Python runtime ({@code runtime.interpreters}, {@link Runtimes}), each given to the server as one
 * {@link AppInstance}. {@link #start} and {@link #stop} are the two halves of {@link #run}; a host's
 * JVM ({@code dev.apx.ApxServer}) calls them itself, and no signal handler is installed there.
 */
public final class Serve {
    static final Duration CANCELLED_GRACE = Duration.ofSeconds(5);
    private final ApxConfig config;
    private final ProcessRole role;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private Metrics metrics; // null without metrics
    private LogConfig logConfig; // null without a logging config file
    private volatile List<HostedApp> hosted; // one per serving runtime, the first in the base namespace until a reload
    private final Object joinLock = new Object(); // runtimes of the start joining the server, against stop
    private List<CompletableFuture<Void>> joins = List.of(); // one per runtime past the first: done once it serves (or failed)
    private CompletableFuture<Void> allServing = CompletableFuture.completedFuture(null);
    private boolean stopping; // guarded by joinLock
    private volatile boolean startFailed; // a runtime past the first failed to load or start: the run ends
    private volatile int exitCode;
    private InProcessReload reload; // with a supervisor: its reloads; null otherwise
    private PythonInstall install;
    private AppSpec spec;
    private Server server;
    private volatile Warmup.Background warmup; // the idle warm-up, on the first runtime; null when none runs
    private long pid;

    /**
     * A run of {@code config} in a process of {@code role}'s kind; nothing starts yet.
     *
     * @param config the settings
     * @param role   the process around the run
     */
    public Serve(ApxConfig config, ProcessRole role) {
        this.config = config;
        this.role = role;
    }

    /**
     * The settings of this run.
     *
     * @return the configuration it was made with
     */
    public ApxConfig config() {
        return config;
    }

    /**
     * The checks a run makes before Python starts: the logging config file is readable, the app is
     * {@code module:attribute}.
     *
     * @param config the settings
     * @throws IllegalArgumentException the logging config file cannot be read
     * @throws dev.apx.python.PythonSetupException the app is not {@code module:attribute}
     */
    public static void check(ApxConfig config) {
        if (config.logging().config() != null) {
            LogConfig.checkReadable(config.logging().config());
        }
        AppLoader.checkSpec(config.app().spec());
    }

    /**
     * Serves until asked to stop, then stops as {@link #stop} with the graceful timeout.
     *
     * @return the exit code: 0 after a clean shutdown
     */
    public int run() {
        int started = start();
        if (started != 0) {
            return started;
        }
        try {
            stopRequested.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Integer graceful = config.limits().gracefulShutdownTimeout();
        stop(graceful == null ? Duration.ofDays(365) : Duration.ofSeconds(graceful));
        return exitCode;
    }

    /**
     * Loads the app, runs lifespan startup and binds. In a host's JVM it returns once every runtime serves.
     *
     * @return 0 once it serves, else the command line's exit code (the reason is logged)
     */
    public int start() {
        if (!role.ownsProcess()) { // a host's JVM: JVM-wide settings only when asked for
            if (config.logging().level() != null) {
                Log.setLevel(ServeConfigs.logLevel(config.logging().level()));
            }
            if (config.logging().useColors() != null) {
                Log.setColors(config.logging().useColors());
            }
            if (!config.http().headers().isEmpty()) {
                ExtraHeaders.set(config.http().headers());
            }
        }
        WebSocketConfig wsConfig = ServeConfigs.webSockets(config.webSockets());
        Protocols protocols = ServeConfigs.protocols(config); // bad TLS files, wrong passwords fail before Python starts
        MetricsConfig metricsConfig = ServeConfigs.metrics(config.metrics(), System.getenv());
        metrics = metricsConfig == null ? null : Metrics.start(metricsConfig);
        if (metrics != null) {
            Log.info("Metrics on http://" + metricsConfig.host() + ":" + metrics.port() + "/metrics"
                    + (metricsConfig.worker() != null ? " (worker " + metricsConfig.worker() + ", for the supervisor's endpoint)" : ""));
            if (role.workerLink() != null) {
                role.workerLink().metricsServed(metrics.port()); // the supervisor serves them with the other workers'
            }
        }
        int started;
        try {
            started = start(wsConfig, protocols);
        } catch (RuntimeException | Error e) {
            closeResources();
            throw e;
        }
        if (started != 0) {
            closeResources();
        } else if (!role.ownsProcess()) {
            allServing.join();
            if (startFailed) {
                stop(CANCELLED_GRACE);
                return exitCode;
            }
        }
        return started;
    }

    private int start(WebSocketConfig wsConfig, Protocols protocols) {
        install = PythonInstall.locate(Optional.ofNullable(config.runtime().python()), System.getenv());
        Interpreter interpreter = Interpreter.start(install);
        // Uvicorn's order: logging, the env file, the app (whose import may set logger levels)
        logConfig = config.logging().config() == null ? null : LogConfig.apply(interpreter, config.logging().config(),
                config.logging().level() == null ? null : ServeConfigs.logLevel(config.logging().level()), config.logging().accessLog());
        spec = ServeConfigs.appSpec(config, role.oneOfSeveralWorkers());
        Runtimes.Work<HostedApp> startOne = runtime -> {
            HostedApp app = HostedApp.load(runtime, spec);
            app.start(bridge -> { });
            return app;
        };
        // runtimes past the first import on the cores the first's import leaves idle, the rest once it has; each
        // joins the server when it is ready (docs/interpreters.md, "Serving on N runtimes")
        int interpreters = config.runtime().interpreters();
        int early = Math.min(interpreters - 1, Math.max(0, Runtime.getRuntime().availableProcessors() - 1));
        List<CompletableFuture<HostedApp>> importing = Runtimes.start(install, early, startOne);
        try {
            hosted = List.of(HostedApp.load(interpreter, spec));
        } catch (RuntimeException e) {
            throw StartFailures.firstImportFailed(e, importing, CANCELLED_GRACE);
        }
        if (logConfig != null) {
            logConfig.refreshThreshold();
        }
        System.err.printf("apx: loaded %s = %s with Python %s (%s)%n", config.app().spec(), hosted.getFirst().description(),
                install.version(), install.library());
        List<CompletableFuture<HostedApp>> more = new ArrayList<>(Runtimes.told(1, importing));
        more.addAll(Runtimes.startMore(install, 1 + early, interpreters - 1 - early, startOne));
        pid = ProcessHandle.current().pid();
        Log.info("Started server process [" + pid + "]");

        if (role.ownsProcess()) {
            role.onStopSignal().accept(stopRequested::countDown);
        }

        WorkerLink link = role.workerLink();
        // a worker serves on the supervisor's socket, and --fd on its own: neither binds (nor deletes) a path
        ServerConfig serverConfig = ServeConfigs.server(config, link != null || config.bind().fd() != null, protocols);
        Binding binding = new Binding(config, role, metrics);
        Binding.Served served;
        try {
            served = hosted.getFirst().kind() == Interface.WSGI ? binding.wsgi(hosted.getFirst(), serverConfig)
                    : binding.asgi(hosted.getFirst(), serverConfig, wsConfig, () -> hosted);
        } catch (Lifespan.StartupFailed e) {
            Log.error(e.getMessage());
            Log.error("Application startup failed. Exiting.");
            return 3;
        } catch (InterruptedException e) {
            return 1;
        } catch (Binding.BindFailed e) {
            StartFailures.shutDownAfterFailedBind(hosted.getFirst(), more, CANCELLED_GRACE); // as Uvicorn: the app's startup ran, so its shutdown runs
            return 3;
        }
        server = served.server();
        if (metrics != null) {
            metrics.watch(server);
        }
        // the idle warm-up waits for every runtime: on a small machine it would take the CPU their imports need
        // (docs/interpreters.md)
        allServing = join(more).thenRun(() -> startIdleWarmup(served));
        if (link != null) { // the supervisor said where it runs
            reload = new InProcessReload(this, config, install, spec);
            reload.prepareFirstSpares();
            link.supervisorGone().thenRun(stopRequested::countDown);
            link.onReload(reload::reload); // --reload's changes, and SIGHUP to a --workers supervisor
            allServing.thenRun(() -> {
                if (!startFailed) {
                    link.ready(served.onLoop()); // ready means every runtime serves
                }
            });
        } else if (config.bind().fd() != null) {
            Log.info("apx running on socket " + config.bind().fd() + (server.port() > 0 ? " (port " + server.port() + ")" : "")
                    + " (Press CTRL+C to quit)");
        } else if (serverConfig.uds() != null) {
            Log.info("apx running on unix socket " + serverConfig.uds() + " (Press CTRL+C to quit)");
        } else {
            String host = serverConfig.host().contains(":") ? "[" + serverConfig.host() + "]" : serverConfig.host();
            Log.info("apx running on " + (protocols.tls() != null ? "https" : "http") + "://" + host + ":" + server.port()
                    + " (Press CTRL+C to quit)");
        }
        if (protocols.tls() != null) {
            Log.info("TLS by " + protocols.tls().engineName() + ", ALPN " + (protocols.http2().enabled() ? "h2, http/1.1" : "http/1.1"));
        }
        server.requestLimitReached().thenRun(() -> {
            Log.warning("Maximum request limit of " + serverConfig.limits().maxRequests() + " exceeded. Terminating process.");
            if (link != null) {
                link.recycle(); // it serves on until its replacement does, then gets SIGTERM
            } else {
                stopRequested.countDown();
            }
        });
        return 0;
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
                exitCode = StartFailures.told(Runtimes.unwrap(failure), config.app().spec());
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

    /**
     * The bound port (after {@link #start}).
     *
     * @return the port; the free one chosen for port 0
     */
    public int port() {
        return server.port();
    }

    /**
     * Done when something asked the run to end: a signal, the request limit, the supervisor gone.
     *
     * @return the latch that counts down then
     */
    public CountDownLatch stopRequested() {
        return stopRequested;
    }

    /**
     * Stops accepting, drains for up to {@code grace} (then cancels), closes, runs lifespan shutdown.
     *
     * @param grace how long the requests in flight may take before they are cancelled
     */
    public void stop(Duration grace) {
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
            if (reload != null) {
                reload.shutdownRetiring();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            Log.info("Finished server process [" + pid + "]");
            closeResources();
        }
    }

    // ---- what a reload (InProcessReload) needs of the run

    List<HostedApp> hosted() {
        return hosted;
    }

    void serving(List<HostedApp> fresh) {
        hosted = fresh;
    }

    Server server() {
        return server;
    }

    Metrics metrics() {
        return metrics;
    }

    boolean startFailed() {
        return startFailed;
    }

    CompletableFuture<Void> allServing() {
        return allServing;
    }

    /** The idle warm-up, unless the run is already ending. */
    private void startIdleWarmup(Binding.Served served) {
        if (served.idleWarmup() == null) {
            return;
        }
        synchronized (joinLock) { // against stop(), which sets stopping first and then stops the warm-up
            if (!stopping && !startFailed) {
                warmup = Warmup.whileIdle(served.server(), config.warmup().requests(), served.idleWarmup());
            }
        }
    }

    void stopWarmup() {
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
}
