package dev.apx.server.shared;

import dev.apx.log.Log;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;

import java.util.concurrent.TimeUnit;

/**
 * The write timeout: closes a connection that has response bytes waiting and whose client took
 * none of them for {@code --timeout-write} seconds (it stopped reading). A client that reads
 * slowly makes progress and is left alone, as is an idle connection (nothing is waiting). Its own
 * events never travel further, so the keep-alive idle timer is not disturbed.
 */
public final class StalledWriteHandler extends IdleStateHandler {
    private final int seconds;

    public StalledWriteHandler(int seconds) {
        super(true, 0, seconds, 0, TimeUnit.SECONDS); // observeOutput: partial progress on a big write counts
        this.seconds = seconds;
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent event) {
        ChannelOutboundBuffer pending = ctx.channel().unsafe().outboundBuffer();
        // Flushed messages only: bytes written but not yet flushed (a flush deferred to the end of the
        // event loop's turn, as HTTP/2 does) are not the client's to take.
        if (event.state() == IdleState.WRITER_IDLE && pending != null && pending.size() > 0) {
            Log.warning("Client read nothing for " + seconds + " s with a response waiting, closing the connection");
            ctx.close();
        }
    }
}
