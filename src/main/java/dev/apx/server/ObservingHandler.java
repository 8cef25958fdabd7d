package dev.apx.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;

import java.util.ArrayDeque;

/**
 * Watches one connection for {@link HttpObserver} ({@code --metrics} only; without it this handler is
 * not in the pipeline). It sits just in front of the exchanges handler, so it sees decoded requests
 * and the app's responses as objects: no handler of the request path calls it. Responses go out in
 * request order, so pipelined requests wait in a queue for theirs.
 *
 * <p>Threads: the channel's event loop only (Netty runs writes made elsewhere there too).
 */
final class ObservingHandler extends ChannelDuplexHandler {
    private final HttpObserver observer;
    private final ArrayDeque<Started> started = new ArrayDeque<>(2);
    private int status;
    private long responseBytes;
    private boolean webSocket;
    private boolean open;

    private static final class Started {
        final String method;
        final long nanos;
        long bodyBytes;

        Started(String method, long nanos) {
            this.method = method;
            this.nanos = nanos;
        }
    }

    ObservingHandler(HttpObserver observer) {
        this.observer = observer;
    }

    /** Added once the first bytes or ALPN chose HTTP/1.1, the channel is active already: it opens here. */
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            opened();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        opened();
        ctx.fireChannelActive();
    }

    private void opened() {
        if (!open) {
            open = true;
            observer.connectionOpened();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (open) {
            observer.connectionClosed();
        }
        if (webSocket) {
            observer.webSocketClosed();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            started.add(new Started(request.method().name(), System.nanoTime()));
        }
        if (msg instanceof HttpContent content) {
            Started last = started.peekLast();
            if (last != null) {
                last.bodyBytes += content.content().readableBytes();
            }
        } else if (msg instanceof WebSocketFrame frame && endsMessage(frame)) {
            observer.webSocketMessageIn();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response) {
            status = response.status().code();
            if (msg instanceof ErrorResponses.Refusal) {
                observer.refused(status);
            }
        }
        if (msg instanceof HttpContent content) {
            responseBytes += content.content().readableBytes();
            if (msg instanceof LastHttpContent) {
                responseEnds();
            }
        } else if (msg instanceof FileRegion file) {
            responseBytes += file.count();
        } else if (msg instanceof WebSocketFrame frame && endsMessage(frame)) {
            observer.webSocketMessageOut();
        }
        ctx.write(msg, promise);
    }

    private void responseEnds() {
        long now = System.nanoTime();
        Started request = started.poll();
        observer.response(request != null ? request.method : "", status, request != null ? now - request.nanos : 0,
                request != null ? request.bodyBytes : 0, responseBytes);
        if (status == 101) {
            webSocket = true;
            observer.webSocketOpened();
        }
        responseBytes = 0;
    }

    /** A data frame that completes a message (fragmented messages end with a final continuation frame). */
    private static boolean endsMessage(WebSocketFrame frame) {
        return frame.isFinalFragment() && (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame
                || frame instanceof ContinuationWebSocketFrame);
    }
}
