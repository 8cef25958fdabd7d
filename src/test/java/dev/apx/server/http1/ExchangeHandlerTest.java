package dev.apx.server.http1;

import dev.apx.server.ChannelSetup;
import dev.apx.server.Server;
import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.Response;
import dev.apx.server.shared.CancelEvent;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.shared.ServerState;
import dev.apx.server.shared.ShutdownEvent;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The connection's pipeline ({@link ChannelSetup}: codec, {@code ExchangeHandler},
 * {@code NettyResponse}) on an {@link EmbeddedChannel} with a frozen clock, for what is hard to
 * reach over a socket: the pipelining queue and its bound, the discard of a body the app did not
 * read, pause/resume of reading, the keep-alive timer, shutdown and cancel events. The app side is
 * a recorder that the test answers by hand; no Python. Every case ends with
 * {@code finishAndReleaseAll()} false, so a leaked buffer fails it.
 *
 * <ol>
 *   <li>pipelined requests open one at a time, answered in order</li>
 *   <li>more than 64 queued messages stop reading until the queue drains</li>
 *   <li>a body the app did not read is discarded before the next request opens</li>
 *   <li>the app's pauseReading toggles autoRead</li>
 *   <li>the keep-alive timer closes an idle connection, not a busy one</li>
 *   <li>shutdown closes an idle connection now, a busy one after its response (which says connection: close)</li>
 *   <li>cancel reaches the open exchange; a disconnect reaches it too</li>
 *   <li>Connection: close drops the requests pipelined behind it</li>
 *   <li>HEAD: the app's body is not written; HTTP/1.0 keep-alive is announced</li>
 *   <li>shutdown while only the rest of an answered body is coming closes at once</li>
 *   <li>shutdown during an upload: the rest of the body still reaches the app; nothing pipelined opens</li>
 *   <li>shutdown before a new connection's first request: that request is served (connection: close); an idle
 *       keep-alive connection that has served one closes at once</li>
 * </ol>
 */
public class ExchangeHandlerTest {
    private final List<Recorded> opened = new ArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private ServerState state;
    private EmbeddedChannel channel;

    /** One request as the app side saw it; {@code response} is answered by the test. */
    public static final class Recorded implements Exchange {
        final RequestHead head;
        public final Response response;
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean last;
        boolean disconnected;
        boolean cancelled;

        public Recorded(RequestHead head, Response response) {
            this.head = head;
            this.response = response;
        }

        @Override
        public void body(byte[] chunk, boolean lastChunk) {
            body.writeBytes(chunk);
            last = lastChunk;
        }

        @Override
        public void disconnected() {
            disconnected = true;
        }

        @Override
        public void writable() {
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        void respond(String text) {
            byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
            response.start(200, List.<String[]>of(new String[]{"content-length", String.valueOf(bytes.length)}), false);
            response.body(bytes, false);
        }
    }

    @BeforeEach
    void connect() {
        ServerConfig config = ServerConfig.builder().port(0).keepAliveTimeoutSeconds(5).serverHeader(false).dateHeader(false)
                .accessLog(false).workerThreads(1).build();
        HttpApp app = (head, response) -> {
            Recorded recorded = new Recorded(head, response);
            opened.add(recorded);
            return recorded;
        };
        state = new ServerState(config, app, new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), inFlight);
        channel = new EmbeddedChannel();
        channel.freezeTime();
        channel.pipeline().addLast(new ChannelSetup(state));
    }

    @AfterEach
    void releaseEverything() {
        channel.close();
        channel.runPendingTasks();
        assertFalse(channel.finishAndReleaseAll(), "nothing left unread or unreleased");
        assertThat(inFlight).hasValue(0);
    }

    private void send(String bytes) {
        channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.ISO_8859_1));
        channel.runPendingTasks();
    }

    /** Everything written so far, as text (responses are small). */
    private String written() throws Exception {
        channel.runPendingTasks();
        StringBuilder out = new StringBuilder();
        for (Object message; (message = channel.readOutbound()) != null; ) {
            if (message instanceof ByteBuf buffer) {
                out.append(buffer.toString(StandardCharsets.ISO_8859_1));
                buffer.release();
            } else if (message instanceof FileRegion region) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                region.transferTo(Channels.newChannel(bytes), 0);
                out.append(bytes.toString(StandardCharsets.ISO_8859_1));
                region.release();
            }
        }
        return out.toString();
    }

    /** The app answers; the end of the response reaches the handler (posted to the event loop). */
    private void answer(Recorded exchange, String text) {
        exchange.respond(text);
        channel.runPendingTasks();
    }

    private String uris() {
        return opened.stream().map(r -> r.head.uri()).toList().toString();
    }

    @Test
    void case1PipelinedRequestsOpenOneAtATimeAndAreAnsweredInOrder() throws Exception {
        send("GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n");
        assertThat(uris()).isEqualTo("[/a]");

        opened.get(0).respond("A");
        assertThat(written()).endsWith("\r\n\r\nA");
        assertThat(uris()).isEqualTo("[/a, /b]");
        opened.get(1).respond("B");
        assertThat(written()).endsWith("\r\n\r\nB");
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void case2AFullPipelineQueueStopsReadingUntilItDrains() throws Exception {
        send("GET /q HTTP/1.1\r\nHost: t\r\n\r\n".repeat(40)); // 39 wait in the queue: each a request and its end
        assertThat(channel.config().isAutoRead()).isFalse();

        int answered = 0;
        while (!channel.config().isAutoRead()) {
            answer(opened.get(answered++), "ok");
        }
        assertThat(answered).as("reading resumes once the queue is short again, before it is empty").isBetween(1, 38);
        while (inFlight.get() > 0) {
            answer(opened.getLast(), "ok");
        }
        assertThat(opened).hasSize(40);
        assertThat(written().split("HTTP/1.1 200 OK", -1)).hasSize(41);
    }

    @Test
    void case3AnUnreadBodyIsDiscardedBeforeTheNextRequestOpens() throws Exception {
        send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n0123");
        Recorded upload = opened.getFirst();
        upload.respond("early answer"); // before the body is all there
        assertThat(written()).endsWith("early answer");

        send("456789GET /next HTTP/1.1\r\nHost: t\r\n\r\n");
        assertThat(upload.body.toString(StandardCharsets.ISO_8859_1)).as("delivered before the response ended").isEqualTo("0123");
        assertThat(upload.last).isFalse();
        assertThat(uris()).as("the rest of the body was not taken for a request").isEqualTo("[/upload, /next]");
        opened.get(1).respond("next");
        assertThat(written()).endsWith("next");
    }

    @Test
    void case4TheAppPausesAndResumesReading() throws Exception {
        send("POST /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nab");
        Recorded slow = opened.getFirst();

        slow.response.pauseReading(true);
        channel.runPendingTasks();
        assertThat(channel.config().isAutoRead()).isFalse();
        slow.response.pauseReading(false);
        channel.runPendingTasks();
        assertThat(channel.config().isAutoRead()).isTrue();

        send("cd");
        assertThat(slow.body.toString(StandardCharsets.ISO_8859_1)).isEqualTo("abcd");
        assertThat(slow.last).isTrue();
        slow.respond("done");
        assertThat(written()).endsWith("done");
    }

    @Test
    void case5TheKeepAliveTimerClosesAnIdleConnectionButNotABusyOne() throws Exception {
        send("GET /busy HTTP/1.1\r\nHost: t\r\n\r\n");
        channel.advanceTimeBy(6, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("busy for longer than the timeout").isTrue();

        opened.getFirst().respond("late");
        assertThat(written()).endsWith("late");
        channel.advanceTimeBy(4, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("idle 4 s of 5").isTrue();
        channel.advanceTimeBy(2, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("idle 6 s of 5").isFalse();
    }

    @Test
    void case6ShutdownClosesIdleConnectionsNowAndBusyOnesAfterTheirResponse() throws Exception {
        send("GET /busy HTTP/1.1\r\nHost: t\r\n\r\n");
        channel.pipeline().fireUserEventTriggered(ShutdownEvent.INSTANCE);
        assertThat(channel.isOpen()).isTrue();

        opened.getFirst().respond("last one");
        assertThat(written()).as("started after the shutdown began").contains("\r\nconnection: close\r\n").endsWith("last one");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void case7CancelAndDisconnectReachTheOpenExchange() {
        send("GET /stuck HTTP/1.1\r\nHost: t\r\n\r\n");
        Recorded stuck = opened.getFirst();

        channel.pipeline().fireUserEventTriggered(CancelEvent.INSTANCE);
        assertThat(stuck.cancelled).isTrue();
        channel.close();
        assertThat(stuck.disconnected).isTrue();
        assertThat(inFlight).hasValue(0);
    }

    @Test
    void case8ConnectionCloseDropsTheRequestsPipelinedBehindIt() throws Exception {
        send("GET /last HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /never HTTP/1.1\r\nHost: t\r\n\r\n");

        opened.getFirst().respond("bye");
        assertThat(written()).contains("\r\nconnection: close\r\n").endsWith("bye");
        assertThat(channel.isOpen()).isFalse();
        assertThat(uris()).isEqualTo("[/last]");
    }

    @Test
    void case9HeadWritesNoBodyAndHttp10KeepAliveIsAnnounced() throws Exception {
        send("HEAD /h HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        opened.getFirst().respond("not sent");

        String response = written();
        assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\nconnection: keep-alive\r\n")
                .contains("\r\ncontent-length: 8\r\n").endsWith("\r\n\r\n");
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void case10ShutdownWhileOnlyTheRestOfAnAnsweredBodyIsComingClosesAtOnce() throws Exception {
        send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n0123");
        opened.getFirst().respond("early answer");
        assertThat(written()).endsWith("early answer");
        assertThat(channel.isOpen()).as("keep-alive: the rest of the body is awaited and dropped").isTrue();

        channel.pipeline().fireUserEventTriggered(ShutdownEvent.INSTANCE);
        channel.runPendingTasks();
        assertThat(channel.isOpen()).as("closed without waiting for the rest of the body").isFalse();
    }

    @Test
    void case11ShutdownDuringAnUploadDeliversTheRestOfTheBodyAndStartsNothingAfter() throws Exception {
        send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n0123");
        Recorded upload = opened.getFirst();

        channel.pipeline().fireUserEventTriggered(ShutdownEvent.INSTANCE);
        send("456789GET /next HTTP/1.1\r\nHost: t\r\n\r\n");
        assertThat(upload.body.toString(StandardCharsets.ISO_8859_1)).isEqualTo("0123456789");
        assertThat(upload.last).isTrue();
        upload.respond("got it");
        assertThat(written()).contains("\r\nconnection: close\r\n").endsWith("got it");
        assertThat(channel.isOpen()).isFalse();
        assertThat(uris()).as("the pipelined request was not started").isEqualTo("[/upload]");
    }

    @Test
    void case12ShutdownBeforeTheFirstRequestServesItThenCloses() throws Exception {
        state.stopping().set(true); // as Server.stopAccepting, before the event
        channel.pipeline().fireUserEventTriggered(ShutdownEvent.INSTANCE);
        channel.runPendingTasks();
        assertThat(channel.isOpen()).as("accepted just before the shutdown: its request may be on the wire").isTrue();
        send("GET /first HTTP/1.1\r\nHost: t\r\n\r\nGET /second HTTP/1.1\r\nHost: t\r\n\r\n");
        opened.getFirst().respond("served");
        assertThat(written()).contains("\r\nconnection: close\r\n").endsWith("served");
        assertThat(channel.isOpen()).isFalse();
        assertThat(uris()).as("only the first request is served after the shutdown").isEqualTo("[/first]");
    }

    @Test
    void case12bShutdownClosesAnIdleKeepAliveConnectionThatHasServedARequest() throws Exception {
        send("GET /one HTTP/1.1\r\nHost: t\r\n\r\n");
        opened.getFirst().respond("one");
        assertThat(written()).endsWith("one");
        assertThat(channel.isOpen()).isTrue();

        state.stopping().set(true);
        channel.pipeline().fireUserEventTriggered(ShutdownEvent.INSTANCE);
        channel.runPendingTasks();
        assertThat(channel.isOpen()).isFalse();
    }
}
