package dev.apx.server.http2;

import dev.apx.server.HttpObserver;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Counts an HTTP/2 connection for {@code --metrics}. It joins the pipeline once ALPN or the client
 * preface chose h2, after the channel became active, so the connection opens when it is added.
 */
final class ConnectionObserver extends ChannelInboundHandlerAdapter {
    private final HttpObserver observer;
    private boolean open;

    ConnectionObserver(HttpObserver observer) {
        this.observer = observer;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            open = true;
            observer.connectionOpened();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (!open) {
            open = true;
            observer.connectionOpened();
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (open) {
            open = false;
            observer.connectionClosed();
        }
        ctx.fireChannelInactive();
    }
}
