package dev.apx.server.websocket;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker13;

/**
 * Netty's version 13 handshake, with a frame decoder that hands every close frame on unchecked:
 * Netty's own check, on a close frame it refuses, closes the connection without a close frame
 * (it counts the refused frame as the client's closing handshake) and accepts codes up to 65535.
 * {@link WebSocketHandler} checks the close frame itself ({@link CloseFrames}) and answers 1002 or 1007.
 */
final class CloseCheckingHandshaker extends WebSocketServerHandshaker13 {
    CloseCheckingHandshaker(String uri, WebSocketDecoderConfig decoder) {
        super(uri, null, decoder);
    }

    @Override
    protected WebSocketFrameDecoder newWebsocketDecoder() {
        return new WebSocket13FrameDecoder(decoderConfig()) {
            @Override
            protected void checkCloseFrameBody(ChannelHandlerContext ctx, ByteBuf buffer) {
                // WebSocketHandler checks it
            }
        };
    }
}
