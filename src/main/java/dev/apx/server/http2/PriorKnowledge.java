package dev.apx.server.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.timeout.IdleStateEvent;

import java.util.List;
import java.util.function.Consumer;

/**
 * Cleartext: looks at a connection's first bytes and sets up HTTP/2 when they are the client
 * preface ({@code PRI * HTTP/2.0...}, "prior knowledge", as h2load and curl
 * {@code --http2-prior-knowledge} send), HTTP/1.1 otherwise; then steps aside, handing on what it read.
 */
public final class PriorKnowledge extends ByteToMessageDecoder {
    private static final ByteBuf PREFACE = Http2CodecUtil.connectionPrefaceBuf();

    private final Consumer<ChannelPipeline> http1;
    private final Consumer<ChannelPipeline> http2;

    public PriorKnowledge(Consumer<ChannelPipeline> http1, Consumer<ChannelPipeline> http2) {
        this.http1 = http1;
        this.http2 = http2;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int length = Math.min(in.readableBytes(), PREFACE.readableBytes());
        if (!ByteBufUtil.equals(PREFACE, PREFACE.readerIndex(), in, in.readerIndex(), length)) {
            http1.accept(ctx.pipeline());
        } else if (length == PREFACE.readableBytes()) {
            http2.accept(ctx.pipeline());
        } else {
            return; // a prefix of the preface so far
        }
        ctx.pipeline().remove(this); // the bytes read so far go on to the protocol's first handler
    }

    /** Idle before the protocol is known (nothing sent, or a preface begun and left): close. */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, event);
    }
}
