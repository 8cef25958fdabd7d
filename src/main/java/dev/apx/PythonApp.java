package dev.apx;

import dev.apx.server.api.Response;

import dev.apx.host.ApiAccess;
import dev.apx.host.HostedApp;
import dev.apx.config.Interface;
import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.WebSocketApp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Python web app loaded into a {@link PythonRuntime}, its lifespan started. {@link #call} hands it
 * a request in-process (no socket); {@code dev.apx.servlet.ApxServlet} serves it in a Servlet
 * container. {@link #close} refuses new requests, drains the running ones (cancelling those still
 * running after 30 s), runs lifespan shutdown once and stops the app's event-loop thread.
 *
 * <p>Threads: {@link #call} may be called from any thread, virtual ones included, and never takes
 * the GIL there: an ASGI app's coroutines run on apx's event-loop thread, a WSGI app on its
 * blocking threads; the caller only queues the request.
 */
public final class PythonApp implements AutoCloseable {
    private static final long DRAIN_MILLIS = 30_000;

    static {
        ApiAccess.register(new ApiAccess.Apps() {
            @Override
            public HttpApp http(Object app, String rootPath) {
                return ((PythonApp) app).http(rootPath);
            }

            @Override
            public WebSocketApp webSocket(Object app, String rootPath) {
                return ((PythonApp) app).webSocket(rootPath);
            }
        });
    }

    private final HostedApp hosted;
    private final String name;
    private final InFlight inFlight = new InFlight();
    private final HttpApp http;
    /** The app with its root path, for a request whose path already starts with it: the path is kept as given. */
    private final HttpApp mounted;
    private final String rootPath;
    private final AtomicBoolean closed = new AtomicBoolean();

    PythonApp(HostedApp hosted, String name, String rootPath) {
        this.hosted = hosted;
        this.name = name;
        this.rootPath = rootPath;
        this.http = inFlight.counted(hosted.http(), name);
        this.mounted = rootPath.isEmpty() ? http : inFlight.counted(hosted.http(rootPath), name);
    }

    /**
     * The interface the app was served with.
     *
     * @return {@code "asgi3"}, {@code "asgi2"} or {@code "wsgi"}
     */
    public String appInterface() {
        return hosted.kind().name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * Sends {@code request} to the app; the future completes with the whole response, or
     * exceptionally if the app fails after it started a response (before, it is a 500, as a
     * server answers). Giving up on the future tells the app the client left ({@code http.disconnect},
     * and {@code CancelledError} in a handler that awaits something else): {@code cancel},
     * {@code orTimeout} expiring, {@code get(timeout)} running out and the caller's own {@code complete}
     * alike (see {@link PythonFuture}).
     *
     * @param request the request, its whole body included
     * @return the response's future; failed at once with IllegalStateException when the app is closed
     */
    public PythonFuture<AppResponse> call(AppRequest request) {
        PythonFuture<AppResponse> future = new PythonFuture<>();
        Exchange exchange;
        try {
            exchange = open(request, new CollectedResponse(future, request.method().equals("HEAD")));
        } catch (RuntimeException e) {
            future.completeExceptionally(e);
            return future;
        }
        disconnectOnGivingUp(future, exchange);
        return future;
    }

    /**
     * A completion the response did not make (cancel, a timeout, the caller's complete or
     * completeExceptionally) is a client that left; after the app's own failure it changes nothing.
     */
    private static void disconnectOnGivingUp(PythonFuture<?> future, Exchange exchange) {
        future.onGivingUp(exchange::disconnected);
    }

    /**
     * As {@link #call}, but the future completes with the response's head as soon as the app
     * starts it, and the body is read as the app sends it ({@link StreamedResponse#body()}), with
     * backpressure: for large or endless (server-sent events) bodies. Giving up on the future
     * before the head came cancels the app as for {@link #call}; after it, closing the body does.
     *
     * @param request the request, its whole body included
     * @return the future of the response's head and body stream; failed at once with IllegalStateException when the app is closed
     */
    public PythonFuture<StreamedResponse> stream(AppRequest request) {
        PythonFuture<StreamedResponse> future = new PythonFuture<>();
        StreamingResponse response = new StreamingResponse(future, request.method().equals("HEAD"));
        Exchange exchange;
        try {
            exchange = open(request, response);
        } catch (RuntimeException e) {
            future.completeExceptionally(e);
            return future;
        }
        response.exchange(exchange);
        disconnectOnGivingUp(future, exchange);
        return future;
    }

    /** Opens the request's exchange and hands it the whole body, as a server would after reading it. */
    private Exchange open(AppRequest request, dev.apx.server.api.Response response) {
        byte[] body = request.bodyNoCopy();
        RequestHead head = new RequestHead(request.method(), request.pathAndQuery(), "HTTP/1.1", headers(request, body),
                null, null, null, body.length == 0);
        Exchange exchange = (underRootPath(request.pathAndQuery()) ? mounted : http).open(head, response);
        exchange.body(body, true);
        exchange.readComplete();
        return exchange;
    }

    /**
     * Whether the request's path starts with the root path (segment by segment): ASGI's mount point,
     * where the path already holds the root path and the app routes on the rest. A path that does not
     * is taken as relative to the mount point and gets the root path put in front, as with {@code --root-path}.
     */
    private boolean underRootPath(String pathAndQuery) {
        if (rootPath.isEmpty() || !pathAndQuery.startsWith(rootPath)) {
            return false;
        }
        if (pathAndQuery.length() == rootPath.length()) {
            return true;
        }
        char next = pathAndQuery.charAt(rootPath.length());
        return next == '/' || next == '?';
    }

    /** The request's headers, with the Host and Content-Length a client would have sent if it has none. */
    private static List<String[]> headers(AppRequest request, byte[] body) {
        List<String[]> headers = new ArrayList<>(request.headers().size() + 2);
        boolean host = false;
        boolean length = false;
        for (Header header : request.headers()) {
            headers.add(new String[]{header.name(), header.value()});
            host |= header.name().equalsIgnoreCase("host");
            length |= header.name().equalsIgnoreCase("content-length") || header.name().equalsIgnoreCase("transfer-encoding");
        }
        if (!host) {
            headers.add(new String[]{"host", "localhost"});
        }
        if (!length && (body.length > 0 || switch (request.method()) {
            case "POST", "PUT", "PATCH" -> true;
            default -> false;
        })) {
            headers.add(new String[]{"content-length", Integer.toString(body.length)});
        }
        return headers;
    }

    /** The handler a servlet mounts, with its root path; counted for {@link #close}. */
    private HttpApp http(String rootPath) {
        return inFlight.counted(hosted.http(rootPath), name);
    }

    /** The websocket handler a servlet mounts, with its root path; null for a WSGI app. */
    private WebSocketApp webSocket(String rootPath) {
        if (closed.get()) {
            throw new IllegalStateException("apx: " + name + " is closed");
        }
        return hosted.webSocket(rootPath);
    }

    /**
     * Requests whose response has not ended, in-process and through a servlet.
     *
     * @return how many there are now
     */
    public int inFlight() {
        return inFlight.size();
    }

    /** Once: drains, runs lifespan shutdown, stops the app's event loop. Later calls return at once. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        PlatformThreads.call("apx-close", () -> {
            inFlight.close(DRAIN_MILLIS);
            hosted.close();
            return null;
        });
    }

    boolean isWsgi() {
        return hosted.kind() == Interface.WSGI;
    }

    @Override
    public String toString() {
        return "PythonApp[" + name + "]";
    }
}
