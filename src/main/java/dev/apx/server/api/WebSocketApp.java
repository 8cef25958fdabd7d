package dev.apx.server.api;

/**
 * What the server calls for each WebSocket upgrade request: the ASGI layer implements it. No Netty
 * or Python types cross this boundary. {@link #open} runs on the connection's event-loop thread,
 * before the handshake: the app decides (through {@code connection}) to accept or deny.
 */
@FunctionalInterface
public interface WebSocketApp {
    WebSocketSession open(RequestHead head, WebSocketConnection connection);
}
