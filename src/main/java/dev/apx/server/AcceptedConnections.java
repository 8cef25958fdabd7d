package dev.apx.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.group.ChannelGroup;

/**
 * On the listening socket: puts each connection in the server's group the moment it is accepted.
 * With Netty's own threads, the acceptor hands a new connection to a worker thread as a queued
 * task; a connection counted only once that task ran could slip past a graceful shutdown that
 * started in between, and be closed with its first request on the wire ({@link Server#drain}).
 */
@ChannelHandler.Sharable
final class AcceptedConnections extends ChannelInboundHandlerAdapter {
    private final ChannelGroup connections;

    AcceptedConnections(ChannelGroup connections) {
        this.connections = connections;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (message instanceof Channel connection) {
            connections.add(connection);
        }
        ctx.fireChannelRead(message);
    }
}
