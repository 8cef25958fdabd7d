package dev.apx.server.http2;

import dev.apx.server.api.HttpObserver;

import io.netty.handler.codec.http2.Http2Headers;

/**
 * Watches one HTTP/2 stream for {@link HttpObserver} ({@code --metrics} only), as the HTTP/1.1
 * pipeline's ConnectionCounter counts the connection: {@link StreamRequest} tells it of the request's
 * HEADERS and DATA and of every response frame it writes, so the same {@code apx_http_*} series
 * count both protocols. The response ends with the frame that carries END_STREAM (the last DATA
 * frame, or the trailers); a stream reset before that counts no response, as a dropped HTTP/1.1
 * connection does not.
 *
 * <p>Threads: the connection's event loop only.
 */
final class StreamObserver {
    private final HttpObserver observer;
    private String method;
    private long started;
    private long requestBytes;
    private int status;
    private long responseBytes;
    private boolean ended;
    private boolean refusing;

    StreamObserver(HttpObserver observer) {
        this.observer = observer;
    }

    void request(CharSequence name) {
        method = name != null ? name.toString() : "";
        started = System.nanoTime();
    }

    void requestData(int bytes) {
        requestBytes += bytes;
    }

    /** The next response is the server's own answer (431, 413, 503), for apx_http_rejected_requests_total. */
    void refusing() {
        refusing = true;
    }

    void responseHeaders(Http2Headers headers, boolean endStream) {
        CharSequence code = headers.status();
        if (code != null && status == 0) {
            status = parseStatus(code);
            if (refusing) {
                observer.refused(status);
            }
        }
        if (endStream) {
            ended();
        }
    }

    void responseData(int bytes, boolean endStream) {
        responseBytes += bytes;
        if (endStream) {
            ended();
        }
    }

    private void ended() {
        if (ended) {
            return;
        }
        ended = true;
        observer.response(method != null ? method : "", status, method != null ? System.nanoTime() - started : 0,
                requestBytes, responseBytes);
    }

    private static int parseStatus(CharSequence code) {
        try {
            return Integer.parseInt(code.toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
