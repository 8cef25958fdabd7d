package dev.apx.server;

import dev.apx.metrics.Metrics;
import dev.apx.metrics.MetricsConfig;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.api.Response;
import dev.apx.server.http1.ExchangeHandlerTest;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.shared.ServerState;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@code --metrics} adds to one plaintext request on the event loop: the request's bytes in,
 * through a connection's real HTTP/1.1 pipeline ({@link ChannelSetup}: decoder, {@code ExchangeHandler},
 * {@code NettyResponse}, encoder), a 13-byte response out, with and without the real Prometheus series.
 * The difference of the two is the cost per request, to set beside apx's CPU per plaintext request
 * (docs/metrics.md). No Python: the app's side answers at once. Run with {@code bench/jmh MetricsCostBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class MetricsCostBench {
    private static final byte[] REQUEST = "GET / HTTP/1.1\r\nHost: bench\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BODY = "Hello, world!".getBytes(StandardCharsets.US_ASCII);
    private static final List<String[]> HEADERS = List.<String[]>of(new String[]{"content-type", "text/plain"},
            new String[]{"content-length", "13"});

    @Param({"off", "on"})
    public String metrics;

    private EmbeddedChannel channel;
    private Metrics registry;
    private Response response;

    @Setup
    public void setUp() {
        HttpObserver observer = HttpObserver.NONE;
        if (metrics.equals("on")) {
            registry = Metrics.start(new MetricsConfig("127.0.0.1", 0, null));
            observer = registry.http();
        }
        HttpApp app = (head, response) -> {
            this.response = response;
            return new ExchangeHandlerTest.Recorded(head, response);
        };
        ServerState state = new ServerState(ServerConfig.defaults().withPort(0), app,
                new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), new AtomicInteger(), null, observer);
        channel = new EmbeddedChannel();
        channel.pipeline().addLast(new ChannelSetup(state));
    }

    @TearDown
    public void tearDown() {
        channel.finishAndReleaseAll();
        if (registry != null) {
            registry.close();
        }
    }

    @Benchmark
    public void request() {
        channel.writeInbound(Unpooled.wrappedBuffer(REQUEST));
        response.start(200, HEADERS, false);
        response.body(BODY, false);
        channel.runPendingTasks();
        for (Object message; (message = channel.readOutbound()) != null; ) {
            ((ByteBuf) message).release();
        }
    }
}
