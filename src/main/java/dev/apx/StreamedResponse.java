package dev.apx;

import java.io.InputStream;
import java.util.List;

/**
 * The head of a response whose body is read as it comes ({@link PythonApp#stream}): the app's
 * {@code send()} waits while {@link #body()} holds more than 256 KiB unread, so a large or endless
 * body never piles up in memory. Closing the body before its end tells the app the client left
 * ({@code http.disconnect}, then {@code CancelledError}).
 */
public final class StreamedResponse {
    private final int status;
    private final List<Header> headers;
    private final InputStream body;

    StreamedResponse(int status, List<Header> headers, InputStream body) {
        this.status = status;
        this.headers = List.copyOf(headers);
        this.body = body;
    }

    /**
     * The status the app sent.
     *
     * @return the HTTP status code
     */
    public int status() {
        return status;
    }

    /**
     * The headers in the order the app sent them, names as it spelled them, duplicates kept.
     *
     * @return the headers (unmodifiable)
     */
    public List<Header> headers() {
        return headers;
    }

    /**
     * The first value of one header.
     *
     * @param name the header's name (any case)
     * @return its first value, or null when the app sent none
     */
    public String header(String name) {
        return Header.first(headers, name);
    }

    /**
     * The body as the app sends it; {@code read} blocks until the app sends more (use a virtual
     * thread or a thread of your own, not an event loop's). It throws an IOException if the app breaks off.
     * Closing it before the end tells the app the client left.
     *
     * @return the body's stream (the same one on every call)
     */
    public InputStream body() {
        return body;
    }
}
