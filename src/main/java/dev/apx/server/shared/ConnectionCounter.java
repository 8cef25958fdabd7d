package dev.apx.server.shared;

import dev.apx.server.api.HttpObserver;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Counts a connection open and closed for {@code --metrics}, on HTTP/1.1 and h2 alike. It handles no
 * read or write, so Netty passes every request's messages by it at no cost (the requests are counted
 * where they are served: {@code NettyResponse}, {@link ErrorResponses}, and h2's stream observer).
 * On TLS, and on a cleartext port where h2 is on, it joins the pipeline once ALPN or the first bytes
 * chose the protocol, after the channel became active, so the connection opens when it is added.
 */
public final class ConnectionCounter extends ChannelInboundHandlerAdapter {
    private final HttpObserver observer;
    private boolean open;

    public ConnectionCounter(HttpObserver observer) {
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
