package dev.apx.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.charset.StandardCharsets;

/** The server's own responses (bad request, 500, 503): plain text, then the connection closes. */
final class ErrorResponses {
    private ErrorResponses() {
    }

    static void sendAndClose(Channel channel, HttpResponseStatus status, ServerConfig config) {
        String text = status.equals(HttpResponseStatus.BAD_REQUEST) ? "Invalid HTTP request received." : status.reasonPhrase(); // Uvicorn's words
        byte[] body = text.getBytes(StandardCharsets.US_ASCII);
        FullHttpResponse response = new Refusal(status, Unpooled.wrappedBuffer(body));
        DefaultHeaders.add(response.headers(), config);
        response.headers()
                .add("content-type", "text/plain; charset=utf-8")
                .add("content-length", body.length)
                .add("connection", "close");
        channel.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    /** The type that tells the server's own refusals from the app's responses (for {@link ObservingHandler}). */
    static final class Refusal extends DefaultFullHttpResponse {
        Refusal(HttpResponseStatus status, io.netty.buffer.ByteBuf body) {
            super(HttpVersion.HTTP_1_1, status, body);
        }
    }
}
