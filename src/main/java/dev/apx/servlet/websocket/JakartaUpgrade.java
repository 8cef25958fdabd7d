package dev.apx.servlet.websocket;

import dev.apx.log.Log;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.WebSocketApp;
import dev.apx.server.api.WebSocketSession;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.websocket.DeploymentException;
import jakarta.websocket.Endpoint;
import jakarta.websocket.HandshakeResponse;
import jakarta.websocket.server.HandshakeRequest;
import jakarta.websocket.server.ServerContainer;
import jakarta.websocket.server.ServerEndpointConfig;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One WebSocket upgrade through the container's Jakarta WebSocket {@link ServerContainer}. ASGI
 * lets the app decide the handshake ({@code websocket.accept}, {@code websocket.close} or a denial
 * response) after it has seen {@code websocket.connect}, while the container completes an upgrade
 * only from the request's own thread. So the container thread that received the request waits for
 * the app's decision (it never takes the GIL), then either upgrades with the app's subprotocol and
 * headers or writes the denial as a plain HTTP response.
 */
final class JakartaUpgrade {
    private JakartaUpgrade() {
    }

    static void serve(WebSocketApp app, Object container, RequestHead head, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        JakartaConnection connection = new JakartaConnection();
        WebSocketSession session;
        try {
            session = app.open(head, connection);
        } catch (IllegalStateException closing) { // the app's loop has stopped
            response.sendError(503);
            return;
        }
        connection.session(session);
        JakartaConnection.Decision decision;
        try {
            decision = connection.decision();
        } catch (InterruptedException e) { // the container is stopping
            Thread.currentThread().interrupt();
            session.closed(1006, "");
            response.sendError(503);
            return;
        }
        if (!decision.accepted()) {
            deny(response, decision);
            return;
        }
        ServerEndpointConfig config = ServerEndpointConfig.Builder.create(AsgiEndpoint.class, "/")
                .subprotocols(decision.subprotocol() == null ? List.of() : List.of(decision.subprotocol()))
                .configurator(new AppsChoice(connection.endpoint(), decision))
                .build();
        try {
            ((ServerContainer) container).upgradeHttpToWebSocket(request, response, config, Map.of());
        } catch (DeploymentException | IOException | RuntimeException e) {
            Log.warning("WebSocket upgrade failed in the servlet container: " + e);
            connection.upgradeFailed();
            if (!response.isCommitted()) {
                response.sendError(500);
            }
        }
    }

    /** The app's {@code websocket.close} before accepting (403) or its {@code websocket.http.response}. */
    private static void deny(HttpServletResponse response, JakartaConnection.Decision decision) throws IOException {
        response.setStatus(decision.status());
        boolean length = false;
        for (String[] header : decision.headers()) {
            response.addHeader(header[0], header[1]);
            length |= header[0].equalsIgnoreCase("content-length");
        }
        if (!length) {
            response.setContentLength(decision.body().length);
        }
        response.setHeader("Connection", "close"); // as apx's own server: a denied upgrade ends the connection
        response.getOutputStream().write(decision.body());
    }

    /** The handshake as the app chose it: its endpoint instance, its subprotocol (or none) and its extra headers. */
    private static final class AppsChoice extends ServerEndpointConfig.Configurator {
        private final Endpoint endpoint;
        private final JakartaConnection.Decision decision;

        AppsChoice(Endpoint endpoint, JakartaConnection.Decision decision) {
            this.endpoint = endpoint;
            this.decision = decision;
        }

        @Override
        public <T> T getEndpointInstance(Class<T> endpointClass) {
            return endpointClass.cast(endpoint);
        }

        @Override
        public String getNegotiatedSubprotocol(List<String> supported, List<String> requested) {
            return decision.subprotocol() == null ? "" : decision.subprotocol();
        }

        @Override
        public boolean checkOrigin(String originHeaderValue) {
            return true; // the app sees the Origin header and decides, as on apx's own server
        }

        @Override
        public void modifyHandshake(ServerEndpointConfig config, HandshakeRequest request, HandshakeResponse response) {
            for (String[] header : decision.headers()) {
                response.getHeaders().computeIfAbsent(header[0], name -> new ArrayList<>()).add(header[1]);
            }
        }
    }
}
