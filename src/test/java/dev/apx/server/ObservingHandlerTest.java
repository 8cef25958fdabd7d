package dev.apx.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * {@link ObservingHandler} on an EmbeddedChannel: what it tells its observer for each case, in order.
 * Durations are not compared (clock), only that they are not negative.
 */
class ObservingHandlerTest {
    /** Every call as a line, e.g. {@code response GET 200 req=3 resp=5}. */
    private static final class Recorder implements HttpObserver {
        final List<String> events = new ArrayList<>();

        @Override
        public void connectionOpened() {
            events.add("open");
        }

        @Override
        public void connectionClosed() {
            events.add("closed");
        }

        @Override
        public void response(String method, int status, long nanos, long requestBytes, long responseBytes) {
            assertThat(nanos).isNotNegative();
            events.add("response " + method + " " + status + " req=" + requestBytes + " resp=" + responseBytes);
        }

        @Override
        public void refused(int status) {
            events.add("refused " + status);
        }

        @Override
        public void webSocketOpened() {
            events.add("ws open");
        }

        @Override
        public void webSocketClosed() {
            events.add("ws closed");
        }

        @Override
        public void webSocketMessageIn() {
            events.add("ws in");
        }

        @Override
        public void webSocketMessageOut() {
            events.add("ws out");
        }
    }

    private final Recorder recorder = new Recorder();
    private final EmbeddedChannel channel = new EmbeddedChannel(new ObservingHandler(recorder));

    @Test
    void pipelinedRequestsAreMatchedToTheirResponsesInOrderWithBodyBytes() {
        // 1. a POST with a 3+4 byte body and a GET pipelined behind it, before any response
        channel.writeInbound(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/a"),
                new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[3])),
                new DefaultLastHttpContent(Unpooled.wrappedBuffer(new byte[4])),
                new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/b"));
        // 2. the POST's response in three writes, 5 body bytes; then the GET's, whole, 2 bytes
        channel.writeOutbound(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CREATED),
                new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[5])), LastHttpContent.EMPTY_LAST_CONTENT,
                new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND, Unpooled.wrappedBuffer(new byte[2])));
        channel.close();

        assertThat(recorder.events).containsExactly("open", "response POST 201 req=7 resp=5", "response GET 404 req=0 resp=2", "closed");
        assertThat(channel.inboundMessages()).hasSize(4); // every message passed on, untouched
        channel.finishAndReleaseAll();
    }

    @Test
    void theServersOwnRefusalIsCountedAsARefusalAndAResponse() {
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/"));
        channel.writeOutbound(new ErrorResponses.Refusal(HttpResponseStatus.SERVICE_UNAVAILABLE, Unpooled.wrappedBuffer(new byte[19])));

        assertThat(recorder.events).containsExactly("open", "refused 503", "response GET 503 req=0 resp=19");
        channel.finishAndReleaseAll();
    }

    @Test
    void anAppsOwn503IsNotARefusal() {
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/"));
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE));

        assertThat(recorder.events).containsExactly("open", "response GET 503 req=0 resp=0");
        channel.finishAndReleaseAll();
    }

    @Test
    void aWebSocketSessionCountsWholeMessagesNotFramesOrControlFrames() {
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/ws"));
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS));
        // 1. a text message in two fragments, a ping, a binary message
        channel.writeInbound(new TextWebSocketFrame(false, 0, "he"), new ContinuationWebSocketFrame(true, 0, "llo"),
                new PingWebSocketFrame(), new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[1])));
        // 2. one message out
        channel.writeOutbound(new TextWebSocketFrame("hello"));
        channel.close();

        assertThat(recorder.events).containsExactly("open", "response GET 101 req=0 resp=0", "ws open",
                "ws in", "ws in", "ws out", "closed", "ws closed");
        channel.finishAndReleaseAll();
    }

    @Test
    void nothingIsLeftUnreleased() {
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/"));
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(new byte[1])));
        channel.releaseInbound();
        channel.releaseOutbound();
        assertFalse(channel.finishAndReleaseAll());
    }
}
