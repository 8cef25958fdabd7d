package dev.apx.asgi.websocket;

import dev.apx.asgi.AsgiConfig;
import dev.apx.bridge.Bridge;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.WebSocketApp;
import dev.apx.server.api.WebSocketConnection;
import dev.apx.server.api.WebSocketSession;

import java.util.Map;

/**
 * The ASGI websocket protocol as a {@link WebSocketApp}: each upgrade request becomes a
 * {@link WebSocketCycle} and a coroutine {@code app(scope, receive, send)} driven by the
 * {@link Bridge}, as {@code AsgiHttp} does for requests.
 *
 * <p>Owns {@code app}'s and {@code state}'s use here and the {@code _apx._websocket.channels}
 * factory until {@link #close}; the caller owns {@code app} and {@code state}.
 */
public final class AsgiWebSocket implements WebSocketApp, AutoCloseable {
    private final Bridge bridge;
    private final PyRef app;
    private final PyRef state;
    private final PyRef channels;
    private final AsgiConfig config;

    public AsgiWebSocket(Bridge bridge, PyRef app, PyRef state, AsgiConfig config) {
        this.bridge = bridge;
        this.app = app;
        this.state = state;
        this.config = config;
        this.channels = bridge.interpreter().call(gil -> {
            try (PyRef module = gil.importModule("_apx._websocket")) {
                return module.getAttr(gil, "channels");
            }
        });
    }

    @Override
    public WebSocketSession open(RequestHead head, WebSocketConnection connection) {
        return open(head, connection, config);
    }

    /** As {@link #open(RequestHead, WebSocketConnection)} with other settings: a servlet's mount point as the root path. */
    public WebSocketSession open(RequestHead head, WebSocketConnection connection, AsgiConfig config) {
        WebSocketCycle cycle = new WebSocketCycle(bridge, connection);
        Map<String, Object> scope = WebSocketScope.of(head, config);
        bridge.start((gil, started) -> invoke(gil, cycle, scope), (gil, done, result, error) -> cycle.completed(error));
        return cycle;
    }

    private PyRef invoke(Gil gil, WebSocketCycle cycle, Map<String, Object> scope) {
        try (PyRef receive = gil.function("receive", (g, args) -> cycle.receive(g));
             PyRef send = gil.function("send", (g, args) -> cycle.send(g, args.get(0)));
             PyRef sendData = gil.function("send_data", (g, args) -> cycle.send(g, args.get(0), args.get(1)));
             PyRef pair = channels.call(gil, receive, send, sendData);
             PyRef appReceive = pair.callMethod(gil, "__getitem__", 0);
             PyRef appSend = pair.callMethod(gil, "__getitem__", 1);
             PyRef copy = state.callMethod(gil, "copy")) {
            scope.put("state", copy);
            return app.call(gil, scope, appReceive, appSend);
        }
    }

    @Override
    public void close() {
        bridge.interpreter().run(gil -> channels.close());
    }
}
