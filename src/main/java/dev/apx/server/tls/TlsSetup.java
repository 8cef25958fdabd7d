package dev.apx.server.tls;

import dev.apx.log.Log;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslHandler;

import java.util.function.Consumer;

/**
 * After the TLS handshake: remembers the connection's {@link TlsSession}, then sets up the protocol
 * ALPN chose (h2, else HTTP/1.1) after the TLS handler. A failed handshake, or plain HTTP sent to
 * the TLS port, closes that connection only, logged at debug level (as Uvicorn, which logs nothing).
 * Netty's base class holds whatever arrives with the handshake's last flight until the protocol is set up.
 */
public final class TlsSetup extends ApplicationProtocolNegotiationHandler {
    private final TlsContext context;
    private final Consumer<ChannelPipeline> http1;
    private final Consumer<ChannelPipeline> http2;

    public TlsSetup(TlsContext context, Consumer<ChannelPipeline> http1, Consumer<ChannelPipeline> http2) {
        super(ApplicationProtocolNames.HTTP_1_1);
        this.context = context;
        this.http1 = http1;
        this.http2 = http2;
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        TlsSession.remember(ctx.channel(), ssl.engine().getSession(), context);
        if (ApplicationProtocolNames.HTTP_2.equals(protocol) && http2 != null) {
            http2.accept(ctx.pipeline());
        } else {
            http1.accept(ctx.pipeline());
        }
    }

    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
        Log.debug("TLS handshake failed with " + ctx.channel().remoteAddress() + ": " + cause);
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Log.debug("TLS connection error with " + ctx.channel().remoteAddress() + ": " + cause);
        ctx.close();
    }
}
