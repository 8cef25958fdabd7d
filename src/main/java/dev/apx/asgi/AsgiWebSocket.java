package dev.apx.asgi;

import dev.apx.bridge.Bridge;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.server.RequestHead;
import dev.apx.server.WebSocketApp;
import dev.apx.server.WebSocketConnection;
import dev.apx.server.WebSocketSession;

import java.util.Map;

/**
 * The ASGI websocket protocol as a {@link WebSocketApp}: each upgrade request becomes a
 * {@link WebSocketCycle} and a coroutine {@code app(scope, receive, send)} driven by the
 * {@link Bridge}, as {@link AsgiHttp} does for requests.
 *
 * <p>Owns {@code app}'s and {@code state}'s use here and the {@code apx._websocket.awaitable}
 * wrapper until {@link #close}; the caller owns {@code app} and {@code state}.
 */
public final class AsgiWebSocket implements WebSocketApp, AutoCloseable {
    private final Bridge bridge;
    private final PyRef app;
    private final PyRef state;
    private final PyRef wrapper;
    private final AsgiConfig config;

    public AsgiWebSocket(Bridge bridge, PyRef app, PyRef state, AsgiConfig config) {
        this.bridge = bridge;
        this.app = app;
        this.state = state;
        this.config = config;
        this.wrapper = bridge.interpreter().call(gil -> {
            try (PyRef module = gil.importModule("apx._websocket")) {
                return module.getAttr(gil, "awaitable");
            }
        });
    }

    @Override
    public WebSocketSession open(RequestHead head, WebSocketConnection connection) {
        WebSocketCycle cycle = new WebSocketCycle(bridge, connection);
        Map<String, Object> scope = WebSocketScope.of(head, config);
        bridge.start((gil, started) -> invoke(gil, cycle, scope), (gil, done, result, error) -> cycle.completed(error));
        return cycle;
    }

    private PyRef invoke(Gil gil, WebSocketCycle cycle, Map<String, Object> scope) {
        try (PyRef receive = Futures.awaitable(gil, wrapper, "receive", (g, args) -> cycle.receive(g));
             PyRef send = Futures.awaitable(gil, wrapper, "send", (g, args) -> cycle.send(g, args.get(0)));
             PyRef copy = state.callMethod(gil, "copy")) {
            scope.put("state", copy);
            return app.call(gil, scope, receive, send);
        }
    }

    @Override
    public void close() {
        bridge.interpreter().run(gil -> wrapper.close());
    }
}
