package dev.apx.serve;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.http.AsgiHttp;
import dev.apx.asgi.websocket.AsgiWebSocket;
import dev.apx.bridge.Bridge;
import dev.apx.log.Log;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.server.Server;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.IoHost;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.api.WebSockets;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.warmup.WarmupPace;
import dev.apx.server.warmup.WarmupServer;
import dev.apx.server.warmup.WhileIdle;
import dev.apx.wsgi.WsgiConfig;
import dev.apx.wsgi.WsgiHttp;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code --warmup N}: about N requests (and WebSocket messages) over loopback TCP to a server of
 * its own on 127.0.0.1 ({@link WarmupServer}) that serves apx's built-in app ({@code _apx._hello}, or
 * {@code _apx._hello_wsgi} for a WSGI app; never the user's), after the lifespan startup: before the
 * real port opens ({@link WarmupPace#ALWAYS}), or after it on a thread of its own while the real server
 * is idle ({@link #whileIdle}). A warm-up that fails or times out is logged and skipped: it only ever
 * costs time.
 */
final class Warmup {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    /** While idle it may wait for the real server's quiet moments; its own work still takes well under 20 s. */
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(120);

    private Warmup() {
    }

    /** A warm-up running beside the real server (--warmup-mode idle). */
    record Background(WhileIdle pace, Thread thread) {
        /** Ends it and waits until its server is closed and its references to the runtime are released. */
        void stop() throws InterruptedException {
            pace.stop();
            if (!thread.join(Duration.ofSeconds(10))) {
                Log.warning("warm-up: still running 10 s after it was asked to stop");
            }
        }
    }

    /** Starts {@code warmUp} on a thread of its own at the pace of {@code real}'s idle moments, ending after {@code requests}. */
    static Background whileIdle(Server real, int requests, Consumer<WarmupPace> warmUp) {
        WhileIdle pace = new WhileIdle(real, requests);
        return new Background(pace, Thread.ofPlatform().name("apx-warmup").daemon().start(() -> warmUp.accept(pace)));
    }

    /** An ASGI server's warm-up: HTTP, and WebSockets when {@code ws} is on, in the I/O mode {@code host} says. */
    static void asgi(Interpreter interpreter, Bridge bridge, ServerConfig config, AsgiConfig asgi, WebSocketConfig ws,
                     IoHost host, int requests, WarmupPace pace) {
        long start = System.nanoTime();
        PyRef app = builtIn(interpreter, "_apx._hello");
        PyRef state = interpreter.call(gil -> gil.dict(Map.of()));
        try {
            WebSockets webSockets = ws.enabled() ? new WebSockets(new AsgiWebSocket(bridge, app, state, asgi), ws) : null;
            run(config, new AsgiHttp(bridge, app, state, asgi), webSockets, host, requests, pace, start);
        } finally {
            interpreter.run(gil -> {
                app.close();
                state.close();
            });
        }
    }

    /** A WSGI server's warm-up: its blocking threads are its own, closed before the real server starts. */
    static void wsgi(Interpreter interpreter, ServerConfig config, WsgiConfig wsgi, int requests, WarmupPace pace) {
        long start = System.nanoTime();
        PyRef app = builtIn(interpreter, "_apx._hello_wsgi");
        // no slow-request lines: a built-in app's request slowed by a start on a busy core is not the user's concern
        WsgiHttp http = new WsgiHttp(interpreter, app, new WsgiConfig(wsgi.app(), wsgi.threads(), 0, wsgi.multiprocess()));
        try {
            run(config, http, null, null, requests, pace, start);
        } finally {
            http.close(5000);
            interpreter.run(gil -> app.close());
        }
    }

    private static void run(ServerConfig config, HttpApp http, WebSockets webSockets, IoHost host, int requests, WarmupPace pace,
                            long start) {
        try {
            WarmupServer.Result result = WarmupServer.run(config, http, webSockets, host, requests, pace,
                    pace == WarmupPace.ALWAYS ? TIMEOUT : IDLE_TIMEOUT);
            Log.debug("warm-up: " + result.answered() + " of " + requests + " requests answered in "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + result
                    + (pace == WarmupPace.ALWAYS ? ", before the port opened" : ", while the server was idle"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            Log.warning("warm-up skipped: " + e);
        }
    }

    private static PyRef builtIn(Interpreter interpreter, String module) {
        return interpreter.call(gil -> {
            try (PyRef loaded = gil.importModule(module)) {
                return loaded.getAttr(gil, "app");
            }
        });
    }
}
