package dev.apx.server.shared;

import dev.apx.server.api.HttpObserver;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.charset.StandardCharsets;

/** The server's own responses (bad request, 500, 503): plain text, then the connection closes ({@link LingeringClose}). */
public final class ErrorResponses {
    private ErrorResponses() {
    }

    /**
     * Answers {@code status} instead of the app and closes. With {@code --metrics} the refusal counts
     * as one (by reason) and as the request's response: {@code method} and {@code startedNanos} are the
     * request's ({@link System#nanoTime} when its head was read), {@code requestBytes} what came of its body.
     */
    public static void sendAndClose(Channel channel, HttpResponseStatus status, ServerState state, String method, long startedNanos,
                             long requestBytes) {
        String text = status.equals(HttpResponseStatus.BAD_REQUEST) ? "Invalid HTTP request received." : status.reasonPhrase(); // Uvicorn's words
        byte[] body = text.getBytes(StandardCharsets.US_ASCII);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        DefaultHeaders.add(response.headers(), state.config());
        response.headers()
                .add("content-type", "text/plain; charset=utf-8")
                .add("content-length", body.length)
                .add("connection", "close");
        LingeringClose.after(channel.writeAndFlush(response));
        HttpObserver observer = state.observer();
        if (observer != HttpObserver.NONE) {
            observer.refused(status.code());
            observer.response(method, status.code(), System.nanoTime() - startedNanos, requestBytes, body.length);
        }
    }
}
