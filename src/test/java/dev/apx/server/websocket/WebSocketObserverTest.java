package dev.apx.server.websocket;

import dev.apx.server.RecordingObserver;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link WebSocketObserver} on an EmbeddedChannel: the handshake's response, whole messages, the end of a session. */
class WebSocketObserverTest {
    private final RecordingObserver recorder = new RecordingObserver();
    private final EmbeddedChannel channel = new EmbeddedChannel(new WebSocketObserver(recorder, System.nanoTime()));

    @Test
    void aSessionCountsWholeMessagesNotFramesOrControlFrames() {
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS));
        // 1. a text message in two fragments, a ping, a binary message
        channel.writeInbound(new TextWebSocketFrame(false, 0, "he"), new ContinuationWebSocketFrame(true, 0, "llo"),
                new PingWebSocketFrame(), new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[1])));
        // 2. one message out
        channel.writeOutbound(new TextWebSocketFrame("hello"));
        channel.close();

        assertThat(recorder.events).containsExactly("response GET 101 req=0 resp=0", "ws open", "ws in", "ws in", "ws out",
                "ws closed");
        assertThat(channel.inboundMessages()).hasSize(4); // every frame passed on, untouched
        channel.finishAndReleaseAll();
    }

    @Test
    void anAppThatDeniesTheHandshakeIsAResponseAndNoSession() {
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.FORBIDDEN,
                Unpooled.wrappedBuffer(new byte[9])));
        channel.close();

        assertThat(recorder.events).containsExactly("response GET 403 req=0 resp=9");
        channel.finishAndReleaseAll();
    }
}
