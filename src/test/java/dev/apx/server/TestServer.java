package dev.apx.server;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.LoopIoHost;
import dev.apx.asgi.http.AsgiHttp;
import dev.apx.asgi.lifespan.Lifespan;
import dev.apx.asgi.websocket.AsgiWebSocket;
import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.StartMode;
import dev.apx.config.LifespanMode;
import dev.apx.config.LoopKind;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.TestPython;
import dev.apx.server.api.IoHost;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.api.WebSockets;
import dev.apx.server.shared.ServerConfig;

import java.net.URI;
import java.util.Map;

/**
 * A real apx in this JVM: bridge, lifespan, ASGI layer and Netty server on an ephemeral port of
 * 127.0.0.1, serving {@code module:attribute} from the test resources; with WebSockets when made
 * by {@link #withWebSockets}.
 */
public final class TestServer implements AutoCloseable {
    public final Interpreter python = TestPython.interpreter();
    /**
     * The mode of the tests that do not choose one: LOOP (the loop thread runs the sockets' I/O, the
     * CLI's {@code --io loop}), or CALLER with {@code -Dapx.test.io=threads} (Netty's threads, the CLI's
     * default with asyncio), which the py3.13 lane sets (pom.xml): each mode runs the whole suite once.
     */
    static final StartMode DEFAULT_START = "threads".equals(System.getProperty("apx.test.io")) ? StartMode.CALLER : StartMode.LOOP;

    public final Bridge bridge;
    public final Server server;
    private final AsgiHttp http;
    private final AsgiWebSocket webSocket; // null without WebSockets
    private final Lifespan lifespan;
    private final PyRef app;
    private final PyRef state;

    public TestServer(String module, String attribute, ServerConfig config) {
        this(module, attribute, config, AsgiConfig.defaults());
    }

    public TestServer(String module, String attribute, ServerConfig config, AsgiConfig asgiConfig) {
        this(module, attribute, config, asgiConfig, BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO).withStartMode(DEFAULT_START));
    }

    public TestServer(String module, String attribute, ServerConfig config, AsgiConfig asgiConfig, BridgeConfig bridgeConfig) {
        this(module, attribute, config, asgiConfig, bridgeConfig, null);
    }

    /** Serves both ASGI protocols; {@code webSockets} may be {@link WebSocketConfig#disabled()}. */
    public static TestServer withWebSockets(String module, String attribute, WebSocketConfig webSockets) {
        return new TestServer(module, attribute, ServerConfig.defaults().withAccessLog(false), AsgiConfig.defaults(),
                BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO).withStartMode(DEFAULT_START), webSockets);
    }

    /** Serves both ASGI protocols with {@code config} (TLS, for one). */
    public static TestServer withWebSockets(String module, String attribute, ServerConfig config, WebSocketConfig webSockets) {
        return new TestServer(module, attribute, config, AsgiConfig.defaults(), BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO), webSockets);
    }

    private TestServer(String module, String attribute, ServerConfig config, AsgiConfig asgiConfig, BridgeConfig bridgeConfig,
                       WebSocketConfig webSockets) {
        bridge = Bridge.start(python, bridgeConfig);
        app = python.call(gil -> {
            try (PyRef mod = gil.importModule(module)) {
                return mod.getAttr(gil, attribute);
            }
        });
        state = python.call(gil -> gil.dict(Map.of()));
        lifespan = new Lifespan(bridge, app, state, LifespanMode.AUTO);
        try {
            lifespan.startup();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        http = new AsgiHttp(bridge, app, state, asgiConfig);
        webSocket = webSockets == null ? null : new AsgiWebSocket(bridge, app, state, asgiConfig);
        // The loop thread runs the sockets' I/O (the CLI's --io loop), except with the CALLER start mode,
        // which needs callers (Netty's threads) to start requests: the CLI's default, --io threads with
        // asyncio (DEFAULT_START says which mode a lane runs).
        IoHost host = bridge.startMode() == StartMode.CALLER ? null : new LoopIoHost(bridge);
        server = Server.start(config.withPort(0), http, webSocket == null ? null : new WebSockets(webSocket, webSockets), host);
    }

    public TestServer(String module, String attribute) {
        this(module, attribute, ServerConfig.defaults().withAccessLog(false));
    }

    public int port() {
        return server.port();
    }

    public String address() {
        return "127.0.0.1:" + port();
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port() + path);
    }

    @Override
    public void close() throws InterruptedException {
        server.stopAccepting();
        server.drain(java.time.Duration.ofSeconds(5));
        server.close();
        lifespan.shutdown(5);
        http.close();
        if (webSocket != null) {
            webSocket.close();
        }
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
