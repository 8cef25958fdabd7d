package dev.apx.server.api;

/**
 * Told what the server's connections do, for metrics ({@code --metrics}); {@link #NONE} otherwise,
 * and then the server adds nothing to a connection's pipeline. Called on the channels' event loops,
 * many at once: implementations must not lock (counters such as LongAdder).
 */
public interface HttpObserver {
    HttpObserver NONE = new HttpObserver() {
    };

    default void connectionOpened() {
    }

    default void connectionClosed() {
    }

    /**
     * A response went out whole (its last byte handed to the socket).
     *
     * @param method        the request's method as sent
     * @param status        the response status (101 for an accepted WebSocket upgrade)
     * @param nanos         from the request head read to the end of the response
     * @param requestBytes  the request body's bytes
     * @param responseBytes the response body's bytes
     */
    default void response(String method, int status, long nanos, long requestBytes, long responseBytes) {
    }

    /** The server answered {@code status} itself and closes: a broken request, a limit, the concurrency limit (503). */
    default void refused(int status) {
    }

    default void webSocketOpened() {
    }

    default void webSocketClosed() {
    }

    /** One whole WebSocket message (its final frame) from the client. */
    default void webSocketMessageIn() {
    }

    /** One whole WebSocket message to the client. */
    default void webSocketMessageOut() {
    }
}
