package dev.apx.server.http2;

import dev.apx.log.Log;
import dev.apx.server.CancelEvent;
import dev.apx.server.FirstRequest;
import dev.apx.server.ShutdownEvent;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.timeout.IdleStateEvent;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The server's events on one HTTP/2 connection (after the frame codec): at shutdown, GOAWAY (the
 * codec's graceful close: streams in flight finish, no new one starts, then the connection
 * closes); at the graceful timeout, each running stream's app is cancelled; idle for
 * {@code --timeout-keep-alive} with no stream open since the last one ended, the connection closes
 * (as HTTP/1.1 counts from the last response). Event loop only.
 */
final class Http2Connection extends ChannelInboundHandlerAdapter {
    private final Set<StreamHandler> open = new HashSet<>();
    private final long keepAliveNanos;
    private long lastStreamEnded = System.nanoTime();

    Http2Connection(int keepAliveSeconds) {
        this.keepAliveNanos = TimeUnit.SECONDS.toNanos(keepAliveSeconds);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        FirstRequest.started(ctx.channel()); // HTTP/2 has its own graceful end (GOAWAY)
    }

    void opened(StreamHandler stream) {
        open.add(stream);
    }

    void closed(StreamHandler stream) {
        open.remove(stream);
        lastStreamEnded = System.nanoTime();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event == ShutdownEvent.INSTANCE) {
            ctx.close(); // Http2ConnectionHandler.close: GOAWAY, then waits for the active streams
            return;
        }
        if (event == CancelEvent.INSTANCE) {
            for (StreamHandler stream : Set.copyOf(open)) {
                stream.cancel();
            }
            return;
        }
        if (event instanceof IdleStateEvent) {
            // The idle timer counts frames, and a stream that just ended (a reset written but not yet
            // flushed) may not count: closing then cut the client off before its RST_STREAM arrived.
            if (open.isEmpty() && System.nanoTime() - lastStreamEnded >= keepAliveNanos) {
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    /** What the codec let through: a connection error it already answered (GOAWAY), or the socket's. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof Http2Exception) {
            Log.warning("HTTP/2 connection from " + ctx.channel().remoteAddress() + " closed: " + cause.getMessage());
        } else {
            Log.debug("HTTP/2 connection error: " + cause);
        }
        ctx.close();
    }
}
