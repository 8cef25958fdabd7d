package dev.apx.asgi;

import dev.apx.bridge.Bridge;
import dev.apx.bridge.Request;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.server.Exchange;
import dev.apx.server.HttpApp;
import dev.apx.server.RequestHead;
import dev.apx.server.Response;

import java.util.Map;

/**
 * The ASGI HTTP protocol as an {@link HttpApp}: each request becomes an {@link HttpCycle} and a
 * coroutine {@code app(scope, receive, send)} driven by the {@link Bridge}.
 *
 * <p>Owns {@code app}, {@code state} and the {@code apx._asgi.awaitable} wrapper until {@link #close}.
 */
public final class AsgiHttp implements HttpApp, AutoCloseable {
    private final Bridge bridge;
    private final PyRef app;
    private final PyRef state;
    private final PyRef wrapper;
    private final AsgiConfig config;

    /** {@code state} is the lifespan state dict; each request gets a shallow copy. */
    public AsgiHttp(Bridge bridge, PyRef app, PyRef state, AsgiConfig config) {
        this.bridge = bridge;
        this.app = app;
        this.state = state;
        this.config = config;
        this.wrapper = bridge.interpreter().call(gil -> {
            try (PyRef module = gil.importModule("apx._asgi")) {
                return module.getAttr(gil, "awaitable");
            }
        });
    }

    Bridge bridge() {
        return bridge;
    }

    @Override
    public Exchange open(RequestHead head, Response response) {
        HttpCycle cycle = new HttpCycle(this, response);
        Map<String, Object> scope = Scope.http(head, config);
        String forwardedClient = ProxyHeaders.apply(scope, head, config);
        if (forwardedClient != null) {
            response.logClientAs(forwardedClient);
        }
        Request request = bridge.start((gil, started) -> invoke(gil, cycle, scope),
                (gil, done, result, error) -> cycle.completed(error));
        cycle.started(request);
        return cycle;
    }

    private PyRef invoke(Gil gil, HttpCycle cycle, Map<String, Object> scope) {
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
