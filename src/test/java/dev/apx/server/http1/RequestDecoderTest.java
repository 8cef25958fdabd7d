package dev.apx.server.http1;

import dev.apx.server.ChannelSetup;
import dev.apx.server.CheckingApp;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.shared.ServerState;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parts of {@code RequestDecoder} that keep state between reads, on the real pipeline
 * ({@link ChannelSetup}) of an {@link EmbeddedChannel}: each request is written in two pieces,
 * cut at every byte, and must be judged the same wherever the cut falls.
 */
class RequestDecoderTest {
    private final CheckingApp app = new CheckingApp();
    private final ServerState state = new ServerState(ServerConfig.defaults().withAccessLog(false), app,
            new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), new AtomicInteger());

    @Test
    void obsFoldIsRefusedWhereverTheReadsSplit() {
        String request = "\r\nGET / HTTP/1.1\r\nHost: t\r\nX-A: a\r\n b\r\n\r\n";
        for (int cut = 0; cut <= request.length(); cut++) {
            assertThat(answer(request, cut)).as("cut at %d", cut).startsWith("HTTP/1.1 400 Bad Request\r\n");
        }
    }

    @Test
    void bodyBytesThatLookLikeFoldsAreNeverScanned() {
        // bodies full of "LF SP": only the head may be checked for obs-fold
        String fixed = "POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 8\r\n\r\n\n \n\t\n \r\n";
        String chunked = "POST /b HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n\n \n \r\n0\r\n\r\n";
        String pipelined = "\r\n" + fixed + "\r\nGET /c HTTP/1.1\r\nHost: t\r\n\r\n"; // empty lines before a request line are allowed
        for (String request : new String[]{fixed, chunked, pipelined}) {
            for (int cut = 0; cut <= request.length(); cut++) {
                String answer = answer(request, cut);
                assertThat(answer).as("cut at %d of %s", cut, request).startsWith("HTTP/1.1 200 OK\r\n").doesNotContain(" 400 ");
            }
        }
        assertThat(app.problems).isEmpty();
    }

    @Test
    void tinyChunksAreFineButChunkExtensionsOutweighingTheDataAreNot() {
        String head = "POST /d HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
        String tiny = head + "1\r\nx\r\n".repeat(5000) + "0\r\n\r\n";
        String padded = head + ("1;" + "e".repeat(500) + "\r\nx\r\n").repeat(100) + "0\r\n\r\n";

        assertThat(answer(tiny, tiny.length() / 2)).startsWith("HTTP/1.1 200 OK\r\n").endsWith("5000 bytes");
        assertThat(answer(padded, head.length())).startsWith("HTTP/1.1 400 Bad Request\r\n");
    }

    @Test
    void chunkExtensionsWithoutANameAreRefusedWhereverTheReadsSplit() {
        String head = "POST /e HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
        for (String body : new String[]{"3;\r\nabc\r\n0\r\n\r\n", "3 ;\r\nabc\r\n0\r\n\r\n", "3;=x\r\nabc\r\n0\r\n\r\n",
                "3;a=\"x;y\";\r\nabc\r\n0\r\n\r\n", "3\r\nabc\r\n0;\r\n\r\n"}) {
            String request = head + body;
            for (int cut = 0; cut <= request.length(); cut++) {
                assertThat(answer(request, cut)).as("cut at %d of %s", cut, body).startsWith("HTTP/1.1 400 Bad Request\r\n");
            }
        }
    }

    @Test
    void namedChunkExtensionsAndDataThatLooksLikeThemAreTaken() {
        // RFC 9112 7.1.1: BWS around ";" and "=", tokens and quoted strings (a ";" inside one separates nothing);
        // chunk data made of ";\r\n" is data, never read as a chunk line
        String request = "POST /f HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3;a\r\nabc\r\n3 ; a = 1;b\r\n;\r\n\r\n4;q=\"x;y\\\";\";z=2\r\n;;;;\r\n0;end\r\n\r\n";
        for (int cut = 0; cut <= request.length(); cut++) {
            assertThat(answer(request, cut)).as("cut at %d", cut).startsWith("HTTP/1.1 200 OK\r\n").endsWith("10 bytes");
        }
        assertThat(app.problems).isEmpty();
    }

    @Test
    void aBareCrOrAnUnknownVersionIsAnsweredBeforeTheLineEnds() {
        String[][] cases = {
                {"POST /g HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\rabc", "HTTP/1.1 400 "},
                {"GET /g HTTP/1.1\r\nHost: t\r\nX-A: a\rb", "HTTP/1.1 400 "},
                {"GET /g HTTP/5.6", "HTTP/1.1 505 "},
                {"GET /g HTTP/1.2", "HTTP/1.1 505 "},
                {"GET /g FOO/1.1", "HTTP/1.1 400 "},
                {"GET /g HTTP/1.x", "HTTP/1.1 400 "}};
        for (String[] c : cases) {
            for (int cut = 0; cut <= c[0].length(); cut++) {
                assertThat(answer(c[0], cut)).as("cut at %d of %s", cut, c[0]).startsWith(c[1]);
            }
        }
        assertThat(answer("GET /g HTTP/1.1", 5)).as("HTTP/1.1 waits for its CRLF").isEmpty();
        assertThat(answer("GET /g HTTP/1.1\r\nHost: t\r\n\r", 5)).as("a CR as the last byte read waits").isEmpty();
    }

    /** What the server writes back for {@code request} sent in two reads, split at {@code cut}. */
    private String answer(String request, int cut) {
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelSetup(state));
        byte[] bytes = request.getBytes(StandardCharsets.ISO_8859_1);
        channel.writeInbound(Unpooled.wrappedBuffer(bytes, 0, cut));
        channel.runPendingTasks();
        if (channel.isOpen()) {
            channel.writeInbound(Unpooled.wrappedBuffer(bytes, cut, bytes.length - cut));
            channel.runPendingTasks();
        }
        StringBuilder out = new StringBuilder();
        for (Object msg; (msg = channel.readOutbound()) != null; ) {
            if (msg instanceof ByteBuf buf) {
                out.append(buf.toString(StandardCharsets.ISO_8859_1));
            }
            ReferenceCountUtil.release(msg);
        }
        channel.finishAndReleaseAll();
        return out.toString();
    }
}
