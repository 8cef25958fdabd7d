package dev.apx.cli;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.http.AsgiHttp;
import dev.apx.asgi.websocket.AsgiWebSocket;
import dev.apx.bridge.Bridge;
import dev.apx.log.Log;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.IoHost;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.api.WebSockets;
import dev.apx.server.warmup.WarmupServer;
import dev.apx.wsgi.WsgiConfig;
import dev.apx.wsgi.WsgiHttp;

import java.time.Duration;
import java.util.Map;

/**
 * {@code --warmup N}: about N requests (and WebSocket messages) over loopback TCP to a server of
 * its own on 127.0.0.1 ({@link WarmupServer}) that serves apx's built-in app ({@code _apx._hello}, or
 * {@code _apx._hello_wsgi} for a WSGI app; never the user's), after the lifespan startup and before
 * the real port opens. A warm-up that fails or times out is logged and skipped: it only ever costs time.
 */
final class Warmup {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Warmup() {
    }

    /** An ASGI server's warm-up: HTTP, and WebSockets when {@code ws} is on, in the I/O mode {@code host} says. */
    static void asgi(Interpreter interpreter, Bridge bridge, ServerConfig config, AsgiConfig asgi, WebSocketConfig ws,
                     IoHost host, int requests) {
        long start = System.nanoTime();
        PyRef app = builtIn(interpreter, "_apx._hello");
        PyRef state = interpreter.call(gil -> gil.dict(Map.of()));
        try {
            WebSockets webSockets = ws.enabled() ? new WebSockets(new AsgiWebSocket(bridge, app, state, asgi), ws) : null;
            run(config, new AsgiHttp(bridge, app, state, asgi), webSockets, host, requests, start);
        } finally {
            interpreter.run(gil -> {
                app.close();
                state.close();
            });
        }
    }

    /** A WSGI server's warm-up: its blocking threads are its own, closed before the real server starts. */
    static void wsgi(Interpreter interpreter, ServerConfig config, WsgiConfig wsgi, int requests) {
        long start = System.nanoTime();
        PyRef app = builtIn(interpreter, "_apx._hello_wsgi");
        // no slow-request lines: a built-in app's request slowed by a start on a busy core is not the user's concern
        WsgiHttp http = new WsgiHttp(interpreter, app, new WsgiConfig(wsgi.app(), wsgi.threads(), 0, wsgi.multiprocess()));
        try {
            run(config, http, null, null, requests, start);
        } finally {
            http.close(5000);
            interpreter.run(gil -> app.close());
        }
    }

    private static void run(ServerConfig config, HttpApp http, WebSockets webSockets, IoHost host, int requests, long start) {
        try {
            WarmupServer.Result result = WarmupServer.run(config, http, webSockets, host, requests, TIMEOUT);
            Log.debug("warm-up: " + result.answered() + " of " + requests + " requests answered in "
                    + (System.nanoTime() - start) / 1_000_000 + " ms: " + result);
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
