package dev.apx.cli;

import dev.apx.asgi.AsgiHttp;
import dev.apx.asgi.AsgiWebSocket;
import dev.apx.asgi.Lifespan;
import dev.apx.asgi.LoopIoHost;
import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.StartMode;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonInstall;
import dev.apx.log.Log;
import dev.apx.server.HttpApp;
import dev.apx.server.InheritedSocket;
import dev.apx.server.IoHost;
import dev.apx.metrics.Metrics;
import dev.apx.metrics.MetricsConfig;
import dev.apx.server.HttpObserver;
import dev.apx.server.Protocols;
import dev.apx.server.Server;
import dev.apx.supervisor.WorkerLink;
import dev.apx.server.ServerConfig;
import dev.apx.server.WebSocketConfig;
import dev.apx.server.WebSockets;
import dev.apx.wsgi.WsgiHttp;
import sun.misc.Signal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * One run of the server, in Uvicorn's order: load the app, lifespan startup, bind and serve until
 * SIGINT/SIGTERM, stop accepting, drain in-flight requests (up to the graceful timeout, then cancel
 * them: CancelledError in the app), lifespan shutdown, exit 0. Java owns the signals (Python is embedded without its handlers).
 */
final class Serve {
    private static final Duration CANCELLED_GRACE = Duration.ofSeconds(5);
    private final Main options;
    private Metrics metrics; // null without --metrics
    private Protocols protocols;
    private LogConfig logConfig; // null without --log-config
    private PyRef serverContext;

    Serve(Main options) {
        this.options = options;
    }

    int run() {
        WebSocketConfig wsConfig = options.webSockets.config(); // bad flags fail before Python starts
        protocols = options.protocolOptions.protocols(); // and bad TLS files, wrong passwords
        MetricsConfig metricsConfig = options.metrics.config(System.getenv());
        try (Metrics metrics = metricsConfig == null ? null : Metrics.start(metricsConfig)) {
            if (metrics != null) {
                Log.info("Metrics on http://" + metricsConfig.host() + ":" + metrics.port() + "/metrics"
                        + (metricsConfig.worker() != null ? " (worker " + metricsConfig.worker() + ", for the supervisor's endpoint)" : ""));
                if (options.workerLink != null) {
                    options.workerLink.metricsServed(metrics.port()); // the supervisor serves them with the other workers'
                }
            }
            return run(wsConfig, metrics);
        } finally {
            if (logConfig != null) {
                logConfig.flush(); // the last lines, queued by other threads
            }
        }
    }

    private int run(WebSocketConfig wsConfig, Metrics metrics) {
        this.metrics = metrics;
        PythonInstall install = PythonInstall.locate(Optional.ofNullable(options.python), System.getenv());
        Interpreter interpreter = Interpreter.start(install);
        // Uvicorn's order: logging, the env file, the app (whose import may set logger levels)
        logConfig = options.logConfig == null ? null
                : LogConfig.apply(interpreter, options.logConfig, options.logLevel, options.accessLog);
        if (options.envFile != null) {
            loadEnvFile(interpreter);
        }
        PyRef app = AppLoader.load(interpreter, options.appDir, options.app, options.factory);
        serverContext = interpreter.call(gil -> gil.copyContext()); // with what the app's import set, for each request to copy
        if (logConfig != null) {
            logConfig.refreshThreshold();
        }
        String description = interpreter.call(app::repr);
        System.err.printf("apx: loaded %s = %s with Python %s (%s)%n", options.app, description, install.version(), install.library());
        long pid = ProcessHandle.current().pid();
        Log.info("Started server process [" + pid + "]");

        CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("INT"), signal -> stop.countDown());
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());

        ServerConfig config = options.serverConfig().withProtocols(protocols);
        Interface kind = options.appInterface.resolve(interpreter, app);
        Served served;
        try {
            served = kind == Interface.WSGI ? serveWsgi(interpreter, app, config) : serveAsgi(interpreter, app, kind, config, wsConfig);
        } catch (Lifespan.StartupFailed e) {
            Log.error(e.getMessage());
            Log.error("Application startup failed. Exiting.");
            return 3;
        } catch (InterruptedException e) {
            return 1;
        } catch (BindFailed e) {
            return 1;
        }
        Server server = served.server();
        if (metrics != null) {
            metrics.watch(server);
        }
        WorkerLink link = options.workerLink;
        if (link != null) { // the supervisor said where it runs
            link.supervisorGone().thenRun(stop::countDown);
            link.ready(served.onLoop());
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
                stop.countDown();
            }
        });
        try {
            stop.await();
            Log.info("Shutting down");
            server.stopAccepting();
            Duration grace = options.timeoutGracefulShutdown == null ? Duration.ofDays(365)
                    : Duration.ofSeconds(options.timeoutGracefulShutdown);
            if (!server.drain(grace)) {
                Log.error("Cancel " + server.inFlight() + " running task(s), timeout graceful shutdown exceeded");
                server.cancelInFlight();
                server.drain(CANCELLED_GRACE); // their 500s or closes go out; an app that ignores the cancel is not waited for
            }
            server.close();
            served.afterClose().run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Log.info("Finished server process [" + pid + "]");
        return 0;
    }

    /**
     * A started server, what runs once it has closed (lifespan shutdown, blocking threads), and
     * where the supervisor's health check is answered (the event loop: a blocked loop does not answer).
     */
    private record Served(Server server, Runnable afterClose, java.util.function.Consumer<Runnable> onLoop) {
    }

    /** The bind failed; it is logged. */
    private static final class BindFailed extends Exception {
    }

    private Served serveAsgi(Interpreter interpreter, PyRef loaded, Interface kind, ServerConfig config, WebSocketConfig wsConfig)
            throws Lifespan.StartupFailed, InterruptedException, BindFailed {
        PyRef app = kind.asAsgi3(interpreter, loaded);
        BridgeConfig bridgeConfig = BridgeConfig.defaults().withLoop(options.loop)
                .withSlowDriveMillis(Math.round(options.slowCallbackDuration * 1000));
        if (options.ioMode == IoMode.LOOP) {
            bridgeConfig = bridgeConfig.withStartMode(StartMode.LOOP); // requests arrive on the loop thread: no step lock
        }
        Bridge bridge = Bridge.start(interpreter, bridgeConfig);
        bridge.runRequestsIn(serverContext);
        if (metrics != null) {
            metrics.watch(bridge);
        }
        PyRef state = interpreter.call(gil -> gil.dict(Map.of()));
        Lifespan lifespan = new Lifespan(bridge, app, state, options.lifespan);
        lifespan.startup();
        if (options.warmup > 0) {
            WarmUp.asgi(interpreter, bridge, config, options.asgiConfig(), wsConfig,
                    options.ioMode == IoMode.LOOP ? new LoopIoHost(bridge) : null, options.warmup);
        }
        AsgiHttp http = new AsgiHttp(bridge, app, state, options.asgiConfig());
        AsgiWebSocket webSocket = new AsgiWebSocket(bridge, app, state, options.asgiConfig());
        Server server = bind(config, http, new WebSockets(webSocket, wsConfig),
                options.ioMode == IoMode.LOOP ? new LoopIoHost(bridge) : null);
        return new Served(server, () -> {
            try {
                lifespan.shutdown(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, task -> bridge.runOnLoop(gil -> task.run()));
    }

    /**
     * WSGI: no event loop, no lifespan, no WebSockets (as Uvicorn's --interface wsgi); Netty's own
     * I/O threads whatever --io says, since there is no asyncio loop to host them.
     */
    private Served serveWsgi(Interpreter interpreter, PyRef app, ServerConfig config) throws BindFailed {
        if (options.warmup > 0) {
            WarmUp.wsgi(interpreter, config, options.wsgiConfig(), options.warmup);
        }
        WsgiHttp http = new WsgiHttp(interpreter, app, options.wsgiConfig());
        Server server = bind(config, http, null, null);
        return new Served(server, () -> http.close(5000), Runnable::run); // no loop to block: answer health checks at once
    }

    /** Binds {@code config}'s address, or serves on the socket the supervisor or {@code --fd} hands over. */
    private Server bind(ServerConfig config, HttpApp http, WebSockets webSockets, IoHost host) throws BindFailed {
        WorkerLink link = options.workerLink;
        try {
            InheritedSocket inherited = link != null ? link.socket() : options.fd != null ? InheritedSocket.of(options.fd) : null;
            return Server.start(config, http, webSockets, host, inherited, metrics != null ? metrics.http() : HttpObserver.NONE);
        } catch (RuntimeException e) {
            String where = options.fd != null ? "--fd " + options.fd : config.uds() != null ? config.uds().toString() : config.host() + ":" + config.port();
            Log.error("cannot " + (link != null ? "serve on the supervisor's socket" : "bind " + where) + ": " + e.getMessage());
            throw new BindFailed();
        }
    }

    private void loadEnvFile(Interpreter interpreter) {
        Map<String, String> values;
        try {
            values = EnvFile.read(options.envFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read --env-file " + options.envFile, e);
        }
        interpreter.run(gil -> {
            try (PyRef os = gil.importModule("os"); PyRef environ = os.getAttr(gil, "environ")) {
                environ.callMethod(gil, "update", values).close();
            }
        });
    }
}
