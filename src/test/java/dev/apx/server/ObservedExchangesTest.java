package dev.apx.server;

import dev.apx.server.api.HttpApp;
import dev.apx.server.api.Response;
import dev.apx.server.http1.ExchangeHandlerTest;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.shared.ServerState;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * What {@code --metrics} is told of HTTP/1.1 connections: the connection's pipeline ({@link ChannelSetup}
 * with an observer: {@code ConnectionCounter}, {@code ExchangeHandler}, {@code NettyResponse},
 * {@code ErrorResponses}) on an EmbeddedChannel, the app side answered by the test, no Python.
 * Durations are not compared (clock), only that they are not negative ({@link RecordingObserver}).
 */
class ObservedExchangesTest {
    private final RecordingObserver recorder = new RecordingObserver();
    private final List<ExchangeHandlerTest.Recorded> opened = new ArrayList<>();
    private EmbeddedChannel channel;

    @BeforeEach
    void connect() {
        HttpApp app = (head, response) -> {
            ExchangeHandlerTest.Recorded recorded = new ExchangeHandlerTest.Recorded(head, response);
            opened.add(recorded);
            return recorded;
        };
        ServerState state = new ServerState(ServerConfig.defaults().withPort(0), app,
                new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), new AtomicInteger(), null, recorder);
        channel = new EmbeddedChannel();
        channel.pipeline().addLast(new ChannelSetup(state));
    }

    @AfterEach
    void releaseEverything() {
        channel.close();
        channel.runPendingTasks();
        for (Object message; (message = channel.readOutbound()) != null; ) {
            ((ByteBuf) message).release();
        }
        assertFalse(channel.finishAndReleaseAll(), "nothing left unread or unreleased");
    }

    private void send(String bytes) {
        channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.ISO_8859_1));
        channel.runPendingTasks();
    }

    private void respond(int index, int status, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        Response response = opened.get(index).response;
        response.start(status, List.<String[]>of(new String[]{"content-length", String.valueOf(bytes.length)}), false);
        response.body(bytes, false);
        channel.runPendingTasks();
    }

    @Test
    void pipelinedRequestsAreMatchedToTheirResponsesInOrderWithBodyBytes() {
        // 1. a chunked POST with a 3+4 byte body and a GET pipelined behind it, before any response
        send("POST /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"
                + "GET /b HTTP/1.1\r\nHost: t\r\n\r\n");
        // 2. the POST's response, 5 body bytes; then the GET's, 2 bytes
        respond(0, 201, "hello");
        respond(1, 404, "no");
        channel.close();

        assertThat(recorder.events).containsExactly("open", "response POST 201 req=7 resp=5", "response GET 404 req=0 resp=2", "closed");
    }

    @Test
    void theServersOwnRefusalIsCountedAsARefusalAndAResponse() {
        send("GARBAGE\r\n\r\n");

        assertThat(recorder.events).as("and the connection closes").containsExactly("open", "refused 400",
                "response GET 400 req=0 resp=" + "Invalid HTTP request received.".length(), "closed");
    }

    @Test
    void anAppsOwn503IsNotARefusal() {
        send("GET / HTTP/1.1\r\nHost: t\r\n\r\n");
        respond(0, 503, "");

        assertThat(recorder.events).containsExactly("open", "response GET 503 req=0 resp=0");
    }

    @Test
    void aHeadResponseCountsNoBodyBytes() {
        send("HEAD / HTTP/1.1\r\nHost: t\r\n\r\n");
        respond(0, 200, "ignored");

        assertThat(recorder.events).containsExactly("open", "response HEAD 200 req=0 resp=0");
    }

    @Test
    void aBrokenBodyAfterTheAppGotTheRequestIsTheRequestsRefusal() {
        send("POST /up HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\nZZ\r\n");

        assertThat(opened).hasSize(1);
        assertThat(recorder.events).containsExactly("open", "refused 400",
                "response POST 400 req=2 resp=" + "Invalid HTTP request received.".length(), "closed");
    }
}
