package dev.apx.server;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.AsgiHttp;
import dev.apx.asgi.AsgiWebSocket;
import dev.apx.asgi.Lifespan;
import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.LoopKind;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.TestPython;

import java.time.Duration;
import java.util.Map;

/**
 * A real apx in this JVM with WebSockets ({@code config}): bridge, lifespan, both ASGI protocols
 * and the Netty server on an ephemeral port of 127.0.0.1, serving {@code module:attribute}.
 */
final class WebSocketServer implements AutoCloseable {
    private final Interpreter python = TestPython.interpreter();
    private final Bridge bridge;
    private final Server server;
    private final AsgiHttp http;
    private final AsgiWebSocket webSocket;
    private final Lifespan lifespan;
    private final PyRef app;
    private final PyRef state;

    WebSocketServer(String module, String attribute, WebSocketConfig config) {
        bridge = Bridge.start(python, BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO));
        app = python.call(gil -> {
            try (PyRef mod = gil.importModule(module)) {
                return mod.getAttr(gil, attribute);
            }
        });
        state = python.call(gil -> gil.dict(Map.of()));
        lifespan = new Lifespan(bridge, app, state, Lifespan.Mode.AUTO);
        try {
            lifespan.startup();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        http = new AsgiHttp(bridge, app, state, AsgiConfig.defaults());
        webSocket = new AsgiWebSocket(bridge, app, state, AsgiConfig.defaults());
        server = Server.start(ServerConfig.defaults().withAccessLog(false).withPort(0), http, new WebSockets(webSocket, config));
    }

    int port() {
        return server.port();
    }

    String address() {
        return "127.0.0.1:" + port();
    }

    @Override
    public void close() throws InterruptedException {
        server.stopAccepting();
        server.drain(Duration.ofSeconds(5));
        server.close();
        lifespan.shutdown(5);
        http.close();
        webSocket.close();
        python.run(gil -> {
            app.close();
            state.close();
        });
        bridge.close();
        // An app that raised (ClientDisconnected, RuntimeError) leaves exception/traceback/frame
        // cycles, which hold its receive/send callables until the next collection; collect them
        // now so that later tests of this JVM (LeakTest counts live callables) start clean.
        python.run(gil -> {
            try (PyRef gc = gil.importModule("gc")) {
                gc.callMethod(gil, "collect").close();
            }
        });
    }
}
