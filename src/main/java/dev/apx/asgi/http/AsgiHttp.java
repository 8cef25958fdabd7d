package dev.apx.asgi.http;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.Scope;
import dev.apx.bridge.Bridge;
import dev.apx.python.Args;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.Response;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ASGI HTTP protocol as an {@link HttpApp}: each request becomes an {@link HttpCycle} and a
 * coroutine {@code app(scope, receive, send)} driven by the {@link Bridge}.
 *
 * <p>The request path costs one Python call to start ({@code _apx._asgi.http_runner}'s {@code run},
 * which builds the scope and the receive/send closures) and one upcall per message. The four Java
 * functions behind those closures are made once; each request's closures carry a handle, the key
 * of its cycle in {@link #cycles} until the coroutine ends.
 */
public final class AsgiHttp implements HttpApp, AutoCloseable {
    private static final byte[] NO_BODY = new byte[0];
    private static final String AFTER_COMPLETION = "Unexpected ASGI message sent, after response already completed.";

    private final Bridge bridge;
    private final AsgiConfig config;
    private final PyRef run;
    private final Map<Long, HttpCycle> cycles = new ConcurrentHashMap<>();
    private final AtomicLong handles = new AtomicLong();
    /** The server certificate's PEM and that text as a Python str, made by the first HTTPS request (see {@link #withServerCert}). */
    private volatile ServerCert serverCert;

    private record ServerCert(String pem, PyRef text) {
    }

    /** {@code state} is the lifespan state dict; each request gets a shallow copy. */
    public AsgiHttp(Bridge bridge, PyRef app, PyRef state, AsgiConfig config) {
        this.bridge = bridge;
        this.config = config;
        this.run = bridge.interpreter().call(gil -> {
            try (PyRef module = gil.importModule("_apx._asgi");
                 PyRef receive = gil.function("receive", (g, args) -> {
                     HttpCycle cycle = cycle(args);
                     return cycle == null ? null : cycle.receive(g);
                 });
                 PyRef start = gil.function("send_start", (g, args) -> {
                     HttpCycle cycle = cycle(args);
                     return cycle == null ? AFTER_COMPLETION : cycle.start(g, args.get(1), args.get(2), args.get(3));
                 });
                 PyRef body = gil.function("send_body", (g, args) -> {
                     HttpCycle cycle = cycle(args);
                     return cycle == null ? AFTER_COMPLETION : cycle.body(g, args.get(1), args.get(2));
                 });
                 PyRef send = gil.function("send", (g, args) -> {
                     HttpCycle cycle = cycle(args);
                     return cycle == null ? AFTER_COMPLETION : cycle.send(g, args.get(1));
                 })) {
                return module.callMethod(gil, "http_runner", app, state, receive, start, body, send);
            }
        });
    }

    /** The cycle of a receive/send call, or null when its request already ended. */
    private HttpCycle cycle(Args args) {
        return cycles.get((Long) args.get(0));
    }

    @Override
    public Exchange open(RequestHead head, Response response) {
        return open(head, response, config);
    }

    /** As {@link #open(RequestHead, Response)} with other settings for this request (a servlet's root path). */
    public Exchange open(RequestHead head, Response response, AsgiConfig config) {
        long handle = handles.incrementAndGet();
        HttpCycle cycle = new HttpCycle(bridge, response);
        if (head.bodyless()) {
            cycle.body(NO_BODY, true); // receive() answers in the first drive, without a trip through the loop
        }
        cycles.put(handle, cycle);
        Scope direct = Scope.http(head, config.app());
        Scope scope = direct.forwarded(head, config.app());
        if (scope.client() != direct.client()) {
            response.logClientAs(scope.client()[0] + ":" + scope.client()[1]);
        }
        Object[] arguments = scope.runArguments(handle);
        Object[] tls = scope.tls();
        Runnable start = () -> cycle.started(bridge.start((gil, started) -> {
                    if (tls != null) {
                        withServerCert(gil, tls);
                    }
                    return run.call(gil, arguments);
                },
                (gil, done, result, error) -> {
                    cycles.remove(handle);
                    cycle.completed(error);
                }, head.method() + " " + head.uri(), config.resetContextvars()));
        if (head.bodyless()) {
            start.run();
        } else {
            cycle.startAfterRead(start); // the body that came with the head goes first (HttpCycle.startAfterRead)
        }
        return cycle;
    }

    /**
     * Puts the server certificate into an HTTPS request's TLS extension as the one Python str made
     * for it: converting its ~1.3 KB PEM for every request cost ~3 % of an HTTPS request's CPU. A
     * str is immutable, so requests can share it.
     */
    private void withServerCert(Gil gil, Object[] tls) {
        String pem = (String) tls[0];
        ServerCert cert = serverCert;
        if (cert == null || cert.pem() != pem) { // another TlsContext's (a host serving several): its own str
            cert = new ServerCert(pem, gil.of(pem)); // one left behind is given back by PyRef's Cleaner
            serverCert = cert;
        }
        tls[0] = cert.text();
    }

    @Override
    public void close() {
        bridge.interpreter().run(gil -> {
            run.close();
            ServerCert cert = serverCert;
            if (cert != null) {
                cert.text().close();
            }
        });
    }
}
