package dev.apx.server.shared;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.TimeUnit;

/**
 * Closes a connection after the server's own last response without a TCP reset: a socket closed
 * with unread bytes in it (the rest of a 414's request line, a body not read) sends RST, and over a
 * real network the RST can reach the client before it read the response, which is then lost. So the
 * output is shut down (FIN after the response), what the client still sends is read and dropped,
 * and the socket closes at the client's FIN or after {@link #LINGER_SECONDS} (nginx's
 * lingering_close, with its 5 s lingering_timeout). Over TLS the connection closes at once, as before.
 */
public final class LingeringClose extends ChannelInboundHandlerAdapter {
    static final int LINGER_SECONDS = 5;

    private LingeringClose() {
    }

    /** After {@code written} (the response's write): lingers, or closes when it cannot. */
    public static void after(ChannelFuture written) {
        written.addListener(f -> {
            Channel channel = written.channel();
            if (!f.isSuccess() || !(channel instanceof DuplexChannel duplex) || !channel.isActive()
                    || channel.pipeline().get(SslHandler.class) != null) {
                channel.close();
                return;
            }
            channel.pipeline().addFirst("linger", new LingeringClose());
            channel.config().setAutoRead(true);
            channel.eventLoop().schedule(() -> {
                channel.close();
            }, LINGER_SECONDS, TimeUnit.SECONDS);
            duplex.shutdownOutput().addListener(shut -> {
                if (!shut.isSuccess() || duplex.isInputShutdown()) {
                    channel.close();
                }
            });
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // nothing reaches the handlers behind
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof ChannelInputShutdownEvent) {
            ctx.close();
            return;
        }
        ReferenceCountUtil.release(event);
    }
}
