package dev.apx.server;

import dev.apx.metrics.Metrics;
import dev.apx.metrics.MetricsConfig;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
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

import java.util.concurrent.TimeUnit;

/**
 * What {@code --metrics} adds to one plaintext request on the event loop: a request head in and a
 * response (head, 13-byte body, end) out through a pipeline with and without the
 * {@link ObservingHandler} and the real Prometheus series behind it. The difference of the two is
 * the cost per request, to set beside apx's CPU per plaintext request (docs/metrics.md).
 * Run with {@code bench/jmh ObservingHandlerBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ObservingHandlerBench {
    @Param({"off", "on"})
    public String metrics;

    private EmbeddedChannel channel;
    private Metrics registry;
    private final byte[] body = "Hello, world!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @Setup
    public void setUp() {
        channel = new EmbeddedChannel();
        if (metrics.equals("on")) {
            registry = Metrics.start(new MetricsConfig("127.0.0.1", 0, null));
            channel.pipeline().addLast(new ObservingHandler(registry.http()));
        }
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                // the exchanges handler's place: takes the request
            }
        });
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
        channel.pipeline().fireChannelRead(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/", Unpooled.EMPTY_BUFFER));
        channel.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        channel.write(new DefaultHttpContent(Unpooled.wrappedBuffer(body)));
        channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        channel.outboundMessages().clear();
    }
}
