package dev.apx.server;

import java.util.List;

/**
 * The server side of one WebSocket, driven by the app. Callable from any thread, in protocol
 * order: before the handshake {@link #accept} or {@link #deny}; after it {@link #text},
 * {@link #bytes} and {@link #close}. Each call is handed to the connection's event loop, so calls
 * made from one thread reach the socket in the order they were made.
 *
 * <p>Batching: a thread other than the connection's event loop writes messages without waking
 * that loop and sends them with {@link #flush}, once for all the connections it wrote to, so one
 * batch of sends costs each event loop one wake-up instead of one per message.
 */
public interface WebSocketConnection {
    /** Completes the handshake (101) with this subprotocol (or none) and extra headers (ISO-8859-1 pairs). */
    void accept(String subprotocol, List<String[]> headers);

    /** Answers the upgrade request with a plain HTTP response instead, then closes the connection. */
    void deny(int status, List<String[]> headers, byte[] body);

    /**
     * Writes a text message: sent at once on the connection's event loop; from another thread it is
     * queued (its bytes count against the high-water mark at once) and sent by {@link #flush}.
     */
    void text(String message);

    /** Writes a binary message, as {@link #text}. */
    void bytes(byte[] message);

    /** Sends the messages written to these connections from this thread: one wake-up per event loop. Any thread. */
    static void flush(Iterable<? extends WebSocketConnection> connections) {
        NettyWebSocket.flush(connections);
    }

    /** Sends a close frame; the connection closes when the client answers it, or after a timeout. */
    void close(int code, String reason);

    /** False while the connection's outbound buffer is above its high-water mark. */
    boolean isWritable();

    /** Stops (true) or resumes (false) reading frames from the socket. */
    void pauseReading(boolean paused);

    /** Closes the TCP connection without a close frame (the app ended without closing). */
    void abort();

    /**
     * Runs {@code task} on this connection's event loop once the reads it is processing now are
     * done; the same task asked for by several connections of that loop runs once. For a session
     * that hands each message to another thread: it wakes that thread once per batch of reads.
     * Event loop only (from {@link WebSocketSession} calls).
     */
    void afterReads(Runnable task);
}
