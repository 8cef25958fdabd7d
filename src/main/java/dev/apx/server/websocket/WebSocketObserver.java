package dev.apx.server.websocket;

import dev.apx.server.api.HttpObserver;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;

/**
 * Watches a WebSocket connection for {@link HttpObserver} ({@code --metrics} only): the handshake's
 * response (101, or the app's denial), then whole messages each way, then the session's end. It
 * joins the pipeline when {@link WebSocketUpgrade} hands the connection over, in front of the
 * WebSocket handler, so it sees frames as objects; plain HTTP/1.1 exchanges never pass it.
 *
 * <p>Threads: the channel's event loop only (Netty runs writes made elsewhere there too).
 */
final class WebSocketObserver extends ChannelDuplexHandler {
    private final HttpObserver observer;
    private final long startedNanos;
    private int status;
    private long responseBytes;
    private boolean responded;
    private boolean open;

    /** For the upgrade request read at {@code startedNanos} ({@link System#nanoTime}). */
    WebSocketObserver(HttpObserver observer, long startedNanos) {
        this.observer = observer;
        this.startedNanos = startedNanos;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof WebSocketFrame frame && endsMessage(frame)) {
            observer.webSocketMessageIn();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response) {
            status = response.status().code();
        }
        if (msg instanceof HttpContent content && !responded) {
            responseBytes += content.content().readableBytes();
            if (msg instanceof LastHttpContent) {
                responded = true;
                observer.response("GET", status, System.nanoTime() - startedNanos, 0, responseBytes);
                if (status == 101) {
                    open = true;
                    observer.webSocketOpened();
                }
            }
        } else if (msg instanceof WebSocketFrame frame && endsMessage(frame)) {
            observer.webSocketMessageOut();
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (open) {
            observer.webSocketClosed();
        }
        ctx.fireChannelInactive();
    }

    /** A data frame that completes a message (fragmented messages end with a final continuation frame). */
    private static boolean endsMessage(WebSocketFrame frame) {
        return frame.isFinalFragment() && (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame
                || frame instanceof ContinuationWebSocketFrame);
    }
}
