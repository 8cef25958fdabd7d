package dev.apx.cli;

import dev.apx.asgi.AsgiHttp;
import dev.apx.asgi.AsgiWebSocket;
import dev.apx.asgi.Lifespan;
import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeConfig;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonInstall;
import dev.apx.log.Log;
import dev.apx.server.Protocols;
import dev.apx.server.Server;
import dev.apx.server.ServerConfig;
import dev.apx.server.WebSocketConfig;
import dev.apx.server.WebSockets;
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

    Serve(Main options) {
        this.options = options;
    }

    int run() {
        WebSocketConfig wsConfig = options.webSockets.config(); // bad flags fail before Python starts
        Protocols protocols = options.protocolOptions.protocols(); // and bad TLS files, wrong passwords
        PythonInstall install = PythonInstall.locate(Optional.ofNullable(options.python), System.getenv());
        Interpreter interpreter = Interpreter.start(install);
        if (options.envFile != null) {
            loadEnvFile(interpreter);
        }
        PyRef app = AppLoader.load(interpreter, options.appDir, options.app, options.factory);
        String description = interpreter.call(app::repr);
        System.err.printf("apx: loaded %s = %s with Python %s (%s)%n", options.app, description, install.version(), install.library());
        long pid = ProcessHandle.current().pid();
        Log.info("Started server process [" + pid + "]");

        CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("INT"), signal -> stop.countDown());
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());

        Bridge bridge = Bridge.start(interpreter, BridgeConfig.defaults().withLoop(options.loop)
                .withSlowDriveMillis(Math.round(options.slowCallbackDuration * 1000)));
        PyRef state = interpreter.call(gil -> gil.dict(Map.of()));
        Lifespan lifespan = new Lifespan(bridge, app, state, options.lifespan);
        try {
            lifespan.startup();
        } catch (Lifespan.StartupFailed e) {
            Log.error(e.getMessage());
            Log.error("Application startup failed. Exiting.");
            return 3;
        } catch (InterruptedException e) {
            return 1;
        }
        ServerConfig config = options.serverConfig().withProtocols(protocols);
        AsgiHttp http = new AsgiHttp(bridge, app, state, options.asgiConfig());
        AsgiWebSocket webSocket = new AsgiWebSocket(bridge, app, state, options.asgiConfig());
        Server server;
        try {
            server = Server.start(config, http, new WebSockets(webSocket, wsConfig));
        } catch (RuntimeException e) {
            Log.error("cannot bind " + (config.uds() != null ? config.uds() : config.host() + ":" + config.port()) + ": " + e.getMessage());
            return 1;
        }
        if (config.uds() != null) {
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
            stop.countDown();
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
            lifespan.shutdown(30);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Log.info("Finished server process [" + pid + "]");
        return 0;
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
