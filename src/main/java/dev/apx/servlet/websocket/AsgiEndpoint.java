package dev.apx.servlet.websocket;

import dev.apx.log.Log;
import jakarta.websocket.CloseReason;
import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.Session;

/**
 * The container's endpoint for one WebSocket the app accepted: the session's events go to its
 * {@link JakartaConnection}. Public only because Jakarta WebSocket containers require a public
 * endpoint class; the package is not exported, and each instance is handed over by the upgrade's
 * configurator, never made by the container.
 */
public final class AsgiEndpoint extends Endpoint {
    private final JakartaConnection connection;

    AsgiEndpoint(JakartaConnection connection) {
        this.connection = connection;
    }

    @Override
    public void onOpen(Session session, EndpointConfig config) {
        connection.opened(session);
    }

    @Override
    public void onClose(Session session, CloseReason reason) {
        connection.ended(reason.getCloseCode().getCode(), reason.getReasonPhrase() == null ? "" : reason.getReasonPhrase());
    }

    @Override
    public void onError(Session session, Throwable error) {
        Log.debug("websocket error in the servlet container: " + error); // the container closes the session: onClose follows
    }
}
