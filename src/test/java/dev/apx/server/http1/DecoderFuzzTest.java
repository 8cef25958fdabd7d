package dev.apx.server.http1;

import dev.apx.log.Log;
import dev.apx.server.ChannelSetup;
import dev.apx.server.CheckingApp;
import dev.apx.server.OnceOnly;
import dev.apx.server.RequestShapes;
import dev.apx.server.ResponseStream;
import dev.apx.server.api.Response;
import dev.apx.server.shared.Protocols;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.shared.ServerState;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property-based fuzzing of apx's real connection pipeline ({@link ChannelSetup}) on an
 * {@link EmbeddedChannel}: 100,000 random and mutated requests ({@link RequestShapes}), each cut
 * into pieces at random. The app at the end is {@link CheckingApp}. For every input: nothing is
 * thrown in the pipeline, what comes out is a valid sequence of HTTP responses (a server error
 * response ends it, and the connection is closed), the app saw only well-formed request heads, no
 * request in flight is left once the connection closes, and a good request on a new connection
 * succeeds. Runs in the 3.11 fork only (nothing here depends on the Python version); a failure
 * names the seed ({@code -Dapx.fuzz.seed}) and the case.
 */
public class DecoderFuzzTest {
    private static final int CASES = Integer.getInteger("apx.fuzz.decoderCases", 100_000);

    private final CheckingApp app = new CheckingApp();
    // HTTP/1.1 only (--http 1): the HTTP/1.1 handlers are in the pipeline from the start, where
    // connection() hooks in (with HTTP/2 on, they come after the first bytes: PriorKnowledge).
    private final ServerState state = new ServerState(
            ServerConfig.defaults().withAccessLog(false).withLimits(ServerConfig.defaults().limits().withMaxBody(100_000))
                    .withProtocols(new Protocols(null, dev.apx.server.shared.Http2Config.defaults().withEnabled(false))),
            app, new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), new AtomicInteger());

    @Test
    void everyInputGetsValidResponsesOrACloseAndLeavesTheServerHealthy() {
        OnceOnly.inThe311Fork();
        long seed = RequestShapes.runSeed();
        int[] statuses = new int[600];
        Log.setLevel(Log.Level.ERROR); // a warning per refused request would be most of the run's time
        try {
            run(seed, statuses);
        } finally {
            Log.setLevel(Log.Level.INFO);
        }
        // the generator reaches both sides: answered by the app, and refused by the server
        assertThat(statuses[200]).as("200s").isGreaterThan(CASES / 20);
        assertThat(statuses[400]).as("400s").isGreaterThan(CASES / 20);
    }

    private void run(long seed, int[] statuses) {
        for (int i = 0; i < CASES; i++) {
            SplittableRandom random = RequestShapes.caseRandom(seed, i);
            byte[] input = RequestShapes.any(random);
            try {
                for (ResponseStream.Response response : oneConnection(RequestShapes.pieces(input, random))) {
                    statuses[response.status()]++;
                }
                goodRequestSucceeds();
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("fuzz case " + i + " of seed " + seed + " (-Dapx.fuzz.seed=" + seed + "): "
                        + RequestShapes.show(input), e);
            }
        }
    }

    private List<ResponseStream.Response> oneConnection(List<byte[]> pieces) {
        List<String> errors = new ArrayList<>();
        app.heads.clear();
        EmbeddedChannel channel = connection(errors);
        for (byte[] piece : pieces) {
            if (channel.isOpen()) {
                channel.writeInbound(Unpooled.wrappedBuffer(piece));
                channel.runPendingTasks();
            }
        }
        String output = drain(channel);
        boolean open = channel.isOpen();
        channel.finishAndReleaseAll();
        channel.runPendingTasks();

        assertThat(errors).as("exceptions in the pipeline").isEmpty();
        List<ResponseStream.Response> responses = ResponseStream.parse(output, app.heads);
        for (ResponseStream.Response response : responses) {
            if (response.status() >= 400) {
                assertThat(response.closes()).as("the server's error response says close").isTrue();
                assertThat(open).as("connection still open after a " + response.status()).isFalse();
            }
        }
        assertThat(app.problems).as("malformed request heads that reached the app").isEmpty();
        assertThat(state.inFlight().get()).as("requests in flight after the connection closed").isZero();
        return responses;
    }

    private void goodRequestSucceeds() {
        EmbeddedChannel channel = connection(new ArrayList<>());
        channel.writeInbound(Unpooled.copiedBuffer("POST /ok HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nok", StandardCharsets.ISO_8859_1));
        channel.runPendingTasks();
        String output = drain(channel);
        channel.finishAndReleaseAll();
        channel.runPendingTasks();
        assertThat(output).as("a good request on a new connection").startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n2 bytes");
    }

    private EmbeddedChannel connection(List<String> errors) {
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelSetup(state));
        channel.pipeline().addAfter("encoder", "errors", new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                errors.add(cause.toString());
                ctx.fireExceptionCaught(cause);
            }
        });
        return channel;
    }

    private static String drain(EmbeddedChannel channel) {
        StringBuilder out = new StringBuilder();
        for (Object msg; (msg = channel.readOutbound()) != null; ) {
            if (msg instanceof ByteBuf buf) {
                out.append(buf.toString(StandardCharsets.ISO_8859_1));
            }
            ReferenceCountUtil.release(msg);
        }
        return out.toString();
    }
}
