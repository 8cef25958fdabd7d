package dev.apx.server.api;

import java.util.List;

/**
 * The server side of one WebSocket, driven by the app. Callable from any thread, in protocol
 * order: before the handshake {@link #accept} or {@link #deny}; after it {@link #text},
 * {@link #bytes} and {@link #close}. Each call is handed to the connection's event loop, so calls
 * made from one thread reach the socket in the order they were made.
 */
public interface WebSocketConnection {
    /** Completes the handshake (101) with this subprotocol (or none) and extra headers (ISO-8859-1 pairs). */
    void accept(String subprotocol, List<String[]> headers);

    /** Answers the upgrade request with a plain HTTP response instead, then closes the connection. */
    void deny(int status, List<String[]> headers, byte[] body);

    void text(String message);

    void bytes(byte[] message);

    /** Sends a close frame; the connection closes when the client answers it, or after a timeout. */
    void close(int code, String reason);

    /** False while the connection's outbound buffer is above its high-water mark. */
    boolean isWritable();

    /** How many received messages may wait for the app before reading pauses ({@code --ws-max-queue}). */
    default int maxQueue() {
        return WebSocketConfig.DEFAULT_MAX_QUEUE;
    }

    /** Stops (true) or resumes (false) reading frames from the socket. */
    void pauseReading(boolean paused);

    /** Closes the TCP connection without a close frame (the app ended without closing). */
    void abort();
}
