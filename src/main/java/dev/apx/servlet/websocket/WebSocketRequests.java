package dev.apx.servlet.websocket;

import dev.apx.PythonApp;
import dev.apx.host.ApiAccess;
import dev.apx.log.Log;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.WebSocketApp;
import dev.apx.server.api.WebSocketHandshake;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * WebSocket upgrade requests to {@code ApxServlet}: handed to the app's websocket scope through the
 * container's Jakarta WebSocket 2.1 {@code ServerContainer} ({@link JakartaUpgrade}), or refused with
 * a 400 that says why when the container has none. Nothing here names a {@code jakarta.websocket}
 * type, so a host without that API on its class path still serves plain HTTP.
 */
public final class WebSocketRequests {
    static final String SERVER_CONTAINER = "jakarta.websocket.server.ServerContainer";

    private WebSocketRequests() {
    }

    /** {@code Upgrade: websocket} with {@code Connection: upgrade} (any case, in lists). */
    public static boolean requested(HttpServletRequest request) {
        String upgrade = request.getHeader("Upgrade");
        String connection = request.getHeader("Connection");
        return upgrade != null && connection != null && hasToken(upgrade, "websocket") && hasToken(connection, "upgrade");
    }

    private static boolean hasToken(String list, String token) {
        for (String item : list.split(",")) {
            if (item.strip().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Serves an upgrade request; false when the app has no websocket scope (WSGI), so the request
     * goes to it as plain HTTP, as apx's own server does with a WSGI app.
     */
    public static boolean serve(PythonApp app, HttpServletRequest request, HttpServletResponse response, String mountPath,
                                RequestHead head) throws IOException {
        WebSocketApp webSocket;
        try {
            webSocket = ApiAccess.webSocket(app, mountPath);
        } catch (IllegalStateException closing) {
            response.sendError(503);
            return true;
        }
        if (webSocket == null) {
            return false;
        }
        String problem = WebSocketHandshake.problem(request.getMethod(), request.getProtocol(),
                request.getHeader("Sec-WebSocket-Key"), request.getHeader("Sec-WebSocket-Version"));
        if (problem != null) {
            Log.warning("Invalid WebSocket handshake: " + problem);
            if (WebSocketHandshake.isUnsupportedVersion(problem)) {
                response.setHeader("Sec-WebSocket-Version", "13");
                plain(response, 426, "apx: " + problem + "\n");
            } else {
                plain(response, 400, "apx: invalid WebSocket handshake: " + problem + "\n");
            }
            return true;
        }
        Object container = serverContainer(request.getServletContext());
        if (container == null) {
            plain(response, 400, """
                    apx: this servlet container has no Jakarta WebSocket support enabled, so WebSocket requests \
                    cannot reach the app here.
                    Enable it in the container (Jetty 12 ee10: JakartaWebSocketServletContainerInitializer.configure(context, null); \
                    Tomcat 11: tomcat-embed-websocket, on by default in Spring Boot), or serve WebSockets with apx's own server \
                    (the apx command, Apx.server).
                    """);
            return true;
        }
        JakartaUpgrade.serve(webSocket, container, head, request, response);
        return true;
    }

    /** The container's {@code ServerContainer}, or null when it has none or the Jakarta WebSocket API is not on the class path. */
    private static Object serverContainer(ServletContext context) {
        Object container = context.getAttribute(SERVER_CONTAINER);
        if (container == null) {
            return null;
        }
        try {
            Class<?> type = Class.forName(SERVER_CONTAINER, false, WebSocketRequests.class.getClassLoader());
            return type.isInstance(container) ? container : null;
        } catch (ClassNotFoundException | LinkageError absent) {
            return null;
        }
    }

    static void plain(HttpServletResponse response, int status, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType("text/plain; charset=utf-8");
        response.setContentLength(body.length);
        response.setHeader("Connection", "close");
        response.getOutputStream().write(body);
    }
}
