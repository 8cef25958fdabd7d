package dev.apx.servlet;

import dev.apx.PythonApp;
import dev.apx.host.ApiAccess;
import dev.apx.servlet.websocket.WebSocketRequests;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Objects;

/**
 * A {@link PythonApp} served by a Jakarta Servlet 6.0 container (Jetty 12 ee10, Tomcat 11): each
 * request goes to the app asynchronously with non-blocking I/O both ways. Mount it with a path
 * mapping such as {@code /py/*} (register it with async supported): the app sees
 * {@code root_path} = context path + servlet path and {@code path} the full path (ASGI 2.4);
 * a WSGI app, {@code SCRIPT_NAME} and {@code PATH_INFO}.
 *
 * <p>WebSocket upgrade requests reach an ASGI app's {@code websocket} scope through the container's
 * Jakarta WebSocket 2.1 support ({@code jakarta.websocket.server.ServerContainer}, which Tomcat and
 * Spring Boot enable by default and Jetty 12 ee10 with {@code JakartaWebSocketServletContainerInitializer});
 * without it they get a 400 that says so. The container thread that received the upgrade request
 * waits for the app to accept or deny it.
 *
 * <p>No container thread ever takes or waits for the GIL: the request is queued to the app's
 * event loop (or its blocking threads), and what the app sends is written when the container
 * says the connection can take it. The servlet does not own the app: close the app after the
 * container has stopped (that runs its lifespan shutdown).
 */
public class ApxServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient PythonApp app;

    /**
     * A servlet serving {@code app}.
     *
     * @param app the app every request to this servlet goes to; the servlet does not close it
     */
    public ApxServlet(PythonApp app) {
        this.app = Objects.requireNonNull(app, "app");
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String mountPath = ServletExchange.decodedPrefix(request.getContextPath()) + request.getServletPath();
        if (WebSocketRequests.requested(request)
                && WebSocketRequests.serve(app, request, response, mountPath, ServletExchange.head(request))) {
            return;
        }
        if (!request.isAsyncSupported()) {
            response.sendError(500, "apx: ApxServlet must be registered with async supported (setAsyncSupported(true))");
            return;
        }
        AsyncContext async = request.startAsync();
        async.setTimeout(0); // the app decides how long a response takes, as on apx's own server
        ServletExchange exchange = new ServletExchange(request, response, async);
        try {
            exchange.open(ApiAccess.http(app, mountPath));
        } catch (IllegalStateException closed) { // the app is closing
            response.setStatus(503);
            async.complete();
        }
    }

    @Override
    public String toString() {
        return "ApxServlet[" + app + "]";
    }
}
