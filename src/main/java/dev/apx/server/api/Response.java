package dev.apx.server.api;

import java.nio.file.Path;
import java.util.List;

/**
 * Writes one response. Callable from any thread, one thread at a time, in protocol order:
 * {@link #start}, then {@link #body} until {@code more} is false (or {@link #file}), then
 * {@link #trailers} if announced. {@link #fail} and {@link #abort} end it early.
 */
public interface Response {
    /** Headers are name/value pairs of ISO-8859-1 strings. */
    void start(int status, List<String[]> headers, boolean trailers);

    /** {@link #start} with the app's own reason phrase (WSGI's "200 Fine"); null: the standard one. */
    default void start(int status, String reason, List<String[]> headers, boolean trailers) {
        start(status, headers, trailers);
    }

    void body(byte[] data, boolean more);

    /** The whole body from a file, zero-copy; ends the body. */
    void file(Path path) throws java.io.IOException;

    /** {@code count} bytes of a file from {@code offset}, zero-copy; ends the body (WSGI's file_wrapper). */
    default void file(Path path, long offset, long count) throws java.io.IOException {
        if (offset != 0 || count != java.nio.file.Files.size(path)) {
            throw new java.io.IOException("this response sends whole files only");
        }
        file(path);
    }

    void trailers(List<String[]> headers);

    /** The client the access log names instead of the peer (from a trusted proxy's header); before {@link #start}. */
    default void logClientAs(String hostAndPort) {
        // a response that writes no access log has no use for it
    }

    /** After {@link #start}: true when the response has no body on the wire (HEAD, 1xx, 204, 304), whatever the app sends. */
    default boolean bodyIgnored() {
        return false;
    }

    /** False while the connection's outbound buffer is above its high-water mark. */
    boolean isWritable();

    /**
     * The app asked for the request body (its first {@code receive()}, a read of {@code wsgi.input}):
     * a client that sent {@code Expect: 100-continue} gets its 100 now, as Uvicorn sends it.
     */
    default void bodyWanted() {
        // no interim response on this protocol
    }

    /** Stops (true) or resumes (false) reading the request body from the socket. */
    void pauseReading(boolean paused);

    /** Sends a 500 and closes the connection; only before {@link #start}. */
    void fail();

    /** Closes the connection: the response cannot be completed. */
    void abort();
}
