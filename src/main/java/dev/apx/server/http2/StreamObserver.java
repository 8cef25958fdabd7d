package dev.apx.server.http2;

import dev.apx.server.HttpObserver;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;

/**
 * Watches one HTTP/2 stream for {@link HttpObserver} ({@code --metrics} only), as the HTTP/1.1
 * pipeline's ObservingHandler watches a connection: the request's HEADERS and DATA frames coming in,
 * the response's frames going out, so the same {@code apx_http_*} series count both protocols. It
 * sits first in the stream's pipeline: no handler of the request path calls it. The response ends
 * with the frame that carries END_STREAM (the last DATA frame, or the trailers); a stream reset
 * before that counts no response, as a dropped HTTP/1.1 connection does not.
 *
 * <p>Threads: the stream channel's event loop only (Netty runs writes made elsewhere there too).
 */
final class StreamObserver extends ChannelDuplexHandler {
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

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http2HeadersFrame headers) {
            if (method == null) {
                CharSequence name = headers.headers().method();
                method = name != null ? name.toString() : "";
                started = System.nanoTime();
            }
        } else if (msg instanceof Http2DataFrame data) {
            requestBytes += data.content().readableBytes();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof Http2HeadersFrame headers) {
            CharSequence code = headers.headers().status();
            if (code != null && status == 0) {
                status = parseStatus(code);
                if (refusing) {
                    observer.refused(status);
                }
            }
            if (headers.isEndStream()) {
                ended();
            }
        } else if (msg instanceof Http2DataFrame data) {
            responseBytes += data.content().readableBytes();
            if (data.isEndStream()) {
                ended();
            }
        }
        ctx.write(msg, promise);
    }

    /** The next response is the server's own answer (431, 413, 503), for apx_http_rejected_requests_total. */
    void refusing() {
        refusing = true;
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
