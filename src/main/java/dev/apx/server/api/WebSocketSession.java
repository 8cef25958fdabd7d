package dev.apx.server.api;

/**
 * One WebSocket as the app side sees the connection's events. Every method is called on the
 * connection's event-loop thread, in order; implementations must not block.
 */
public interface WebSocketSession {
    /** A complete text message (fragments already joined, UTF-8 already checked). */
    void text(String message);

    /** A complete binary message (a copy the session owns). */
    void bytes(byte[] message);

    /**
     * The connection is over: the client's close code and reason, or the code the server closed
     * with for a protocol fault (1002, 1007, 1009, 1011, 1012), or 1006 when the TCP connection dropped.
     */
    void closed(int code, String reason);

    /** The socket became writable again after {@link WebSocketConnection#isWritable()} returned false. */
    void writable();
}
