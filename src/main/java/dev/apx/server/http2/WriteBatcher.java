package dev.apx.server.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

import java.util.ArrayList;
import java.util.List;

/**
 * Copies the codec's small writes (frame headers, HEADERS blocks, short DATA) into one buffer until
 * the flush, so that a turn's responses pass the handlers before the socket (the idle and write
 * timers, each with a listener per write) and the outbound buffer as one message, not three per
 * response. Each write's promise completes when the batch holding it is written, as it would have.
 * Larger buffers (a big body's DATA) go through as they are, after the batch, in order.
 *
 * <p>Threads: the event loop (Netty calls outbound handlers there).
 */
final class WriteBatcher extends ChannelOutboundHandlerAdapter {
    /** Buffers up to this size are copied into the batch; a bigger one is written as is. */
    private static final int SMALL = 1024;
    /** A batch this large is written without waiting for the flush. */
    private static final int FULL = 16 * 1024;

    private ByteBuf batch;
    private List<ChannelPromise> waiting = new ArrayList<>();

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf buf) || buf.readableBytes() > SMALL) {
            writeBatch(ctx);
            ctx.write(msg, promise);
            return;
        }
        if (batch == null) {
            batch = ctx.alloc().directBuffer(2048);
        }
        batch.writeBytes(buf);
        buf.release();
        if (!promise.isVoid()) {
            waiting.add(promise);
        }
        if (batch.readableBytes() >= FULL) {
            writeBatch(ctx);
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        writeBatch(ctx);
        ctx.flush();
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        writeBatch(ctx); // as unflushed writes would have been: queued, then closed with the channel
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (batch != null) {
            batch.release();
            batch = null;
        }
        for (ChannelPromise promise : waiting) {
            promise.tryFailure(new IllegalStateException("HTTP/2 handler removed before the write"));
        }
        waiting.clear();
    }

    private void writeBatch(ChannelHandlerContext ctx) {
        ByteBuf out = batch;
        if (out == null) {
            return;
        }
        batch = null;
        List<ChannelPromise> promises = waiting;
        if (promises.isEmpty()) {
            ctx.write(out);
            return;
        }
        waiting = new ArrayList<>();
        ctx.write(out).addListener(written -> {
            Throwable cause = written.cause();
            for (ChannelPromise promise : promises) {
                if (cause == null) {
                    promise.trySuccess();
                } else {
                    promise.tryFailure(cause);
                }
            }
        });
    }
}
