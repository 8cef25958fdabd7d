package dev.apx.bench;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.http.AsgiHttp;
import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeConfig;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.TestPython;
import dev.apx.server.api.Exchange;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.Response;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A whole trivial ASGI request through the real ASGI layer and bridge, without sockets:
 * {@code AsgiHttp.open} with a parsed request head, the (empty) body delivered as the server would,
 * the app's start and body messages checked and handed to an in-memory {@code Response}. What is
 * left out compared to a wrk request is Netty (decode, encode, syscalls). Run with
 * {@code bench/jmh AsgiRequestBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xss4m"})
public class AsgiRequestBench {
    private static final int IN_FLIGHT = 64;
    private static final RequestHead HEAD = new RequestHead("GET", "/?q=1", "HTTP/1.1",
            List.of(new String[] {"host", "127.0.0.1:8000"}, new String[] {"user-agent", "jmh"}, new String[] {"accept", "*/*"}),
            new InetSocketAddress("127.0.0.1", 50000), new InetSocketAddress("127.0.0.1", 8000), null);

    private Bridge bridge;
    private AsgiHttp http;
    private PyRef app;
    private PyRef state;

    @Setup(Level.Trial)
    public void setUp() {
        Interpreter python = TestPython.interpreter();
        bridge = Bridge.start(python, BridgeConfig.defaults());
        python.run(gil -> {
            try (PyRef module = gil.importModule("apxbench.bridge_floor")) {
                app = module.getAttr(gil, "app");
            }
            state = gil.dict(Map.of());
        });
        http = new AsgiHttp(bridge, app, state, AsgiConfig.defaults());
        if (request().join() != 200) {
            throw new IllegalStateException("the trivial app did not answer 200");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        http.close();
        bridge.interpreter().run(gil -> {
            app.close();
            state.close();
        });
        bridge.close();
    }

    private CompletableFuture<Integer> request() {
        InMemoryResponse response = new InMemoryResponse();
        Exchange exchange = http.open(HEAD, response);
        exchange.body(new byte[0], true);
        return response.done;
    }

    /** One request at a time: the latency the ASGI layer and bridge add to a request. */
    @Benchmark
    public int oneAtATime() {
        return request().join();
    }

    /** 64 requests in flight (as 64 busy connections would have): the cost per request under load. */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public int inFlight64() {
        @SuppressWarnings("unchecked")
        CompletableFuture<Integer>[] requests = new CompletableFuture[IN_FLIGHT];
        for (int i = 0; i < IN_FLIGHT; i++) {
            requests[i] = request();
        }
        int sum = 0;
        for (CompletableFuture<Integer> r : requests) {
            sum += r.join();
        }
        return sum;
    }

    /** The response kept in memory: completes with the status once the body has ended. */
    private static final class InMemoryResponse implements Response {
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        private int status;
        private int bodyBytes;

        @Override
        public void start(int code, List<String[]> headers, boolean trailers) {
            status = code;
        }

        @Override
        public void body(byte[] data, boolean more) {
            bodyBytes += data.length;
            if (!more) {
                done.complete(bodyBytes == 13 ? status : -bodyBytes);
            }
        }

        @Override
        public void file(Path path) {
            done.completeExceptionally(new IllegalStateException("unexpected pathsend"));
        }

        @Override
        public void trailers(List<String[]> headers) {
            done.completeExceptionally(new IllegalStateException("unexpected trailers"));
        }

        @Override
        public boolean isWritable() {
            return true;
        }

        @Override
        public void pauseReading(boolean paused) {
        }

        @Override
        public void fail() {
            done.completeExceptionally(new IllegalStateException("the app failed"));
        }

        @Override
        public void abort() {
            done.completeExceptionally(new IllegalStateException("the response was aborted"));
        }
    }
}
