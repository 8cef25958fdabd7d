package dev.apx.server.api;

/**
 * One request as the app side sees the connection's events. Every method is called on the
 * connection's event-loop thread, in order; implementations must not block.
 */
public interface Exchange {
    /** A piece of the request body (a copy the exchange owns); {@code last} after the final one. */
    void body(byte[] chunk, boolean last);

    /**
     * The connection has handed over all it read so far (the end of a read from the socket, or of
     * the requests queued behind a previous one): a good moment to start the app, whose first
     * {@code receive()} then finds the body bytes that came with the head.
     */
    default void readComplete() {
        // an exchange that started at once has nothing to do
    }

    /** The client went away before the response was complete. */
    void disconnected();

    /** The socket became writable again after {@link Response#isWritable()} returned false. */
    void writable();

    /** The server stops without waiting any longer (graceful shutdown timeout): cancel the app. */
    default void cancel() {
        // an exchange with nothing running has nothing to cancel
    }
}
