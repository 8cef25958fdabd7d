package dev.apx.server;

import dev.apx.log.Log;
import dev.apx.python.TestPython;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients that abort at random points: in the middle of the request body, of a 1 MiB response, or
 * of an endless stream; half of them with a reset (SO_LINGER 0), half with a FIN. Afterwards every
 * handler has ended, each one that was cut off having got {@code http.disconnect} or
 * {@code CancelledError} (hostile_apps counts the outcomes), and the process's RSS, heap (after a
 * GC), open file descriptors and Python's live object count are back within the bounds below of
 * where they stood after the first quarter of the run (the warm-up: JIT, heap sizing, buffer pools).
 *
 * <p>2,000 aborts in the 3.11 fork, 400 in the others; {@code bench/disconnects.sh} runs
 * 100,000 ({@code -Dapx.disconnects=N}).
 */
class DisconnectTest {
    private static final int CASES = Integer.getInteger("apx.disconnects",
            TestPython.install().minorVersion().equals("3.11") ? 2_000 : 400);
    private static final long RSS_BOUND = 64L << 20;
    private static final long HEAP_BOUND = 32L << 20;
    private static final long FD_BOUND = 16;
    private static final long OBJECT_BOUND = 2_000;

    private enum Cut { MID_BODY, MID_RESPONSE, MID_STREAM }

    @Test
    void abortedRequestsAreAllEndedAndLeakNothing() throws Exception {
        ServerConfig config = ServerConfig.defaults().withAccessLog(false);
        Log.setLevel(Log.Level.ERROR);
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", config)) {
            long seed = System.nanoTime();
            AtomicLongArray cuts = new AtomicLongArray(Cut.values().length);
            List<Snapshot> quarters = new ArrayList<>();
            for (int q = 0; q < 4; q++) {
                run(server.port(), seed, q * CASES / 4, (q + 1) * CASES / 4, cuts);
                quarters.add(Snapshot.take(server.port()));
            }
            Snapshot before = quarters.getFirst();
            Snapshot after = quarters.getLast();
            String stats = AppState.awaitIdle(server.port());

            System.out.printf("DisconnectTest: %,d aborts (%d mid-body, %d mid-response, %d mid-stream), Python %s%n  outcomes %s%n",
                    CASES, cuts.get(0), cuts.get(1), cuts.get(2), TestPython.install().minorVersion(), stats);
            for (int q = 0; q < 4; q++) {
                System.out.printf("  after %,6d: %s%n", (q + 1) * CASES / 4, quarters.get(q));
            }
            assertThat(AppState.running(stats)).as("handlers still running").isZero();
            assertThat(AppState.count(stats, "failed")).as("handlers that raised something else").isZero();
            long started = AppState.count(stats, "started");
            long cutOff = AppState.count(stats, "disconnect") + AppState.count(stats, "cancelled");
            assertThat(started).as("handlers started").isGreaterThanOrEqualTo(CASES);
            // mid-body and mid-stream handlers cannot finish without the client: each one must have been told
            assertThat(cutOff).as("handlers that got http.disconnect or CancelledError").isGreaterThanOrEqualTo(cuts.get(0) + cuts.get(2));
            assertThat(after.rss - before.rss).as("RSS growth").isLessThan(RSS_BOUND);
            assertThat(after.heap - before.heap).as("heap growth").isLessThan(HEAP_BOUND);
            assertThat(after.fds - before.fds).as("open file descriptor growth").isLessThan(FD_BOUND);
            assertThat(after.objects - before.objects).as("Python live object growth").isLessThan(OBJECT_BOUND);
            assertThat(RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
                    .startsWith("HTTP/1.1 200 ");
        } finally {
            Log.setLevel(Log.Level.INFO);
        }
    }

    /** Cases {@code from} to {@code to} on 8 client threads. */
    private static void run(int port, long seed, int from, int to, AtomicLongArray cuts) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = from; i < to; i++) {
                int index = i;
                done.add(clients.submit(() -> {
                    abortOne(port, new SplittableRandom(seed * 31 + index), cuts);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            clients.shutdown();
        }
        AppState.awaitIdle(port);
    }

    private static void abortOne(int port, SplittableRandom random, AtomicLongArray cuts) throws IOException {
        Cut cut = Cut.values()[random.nextInt(3)];
        cuts.incrementAndGet(cut.ordinal());
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            if (random.nextBoolean()) {
                socket.setSoLinger(true, 0); // close with a reset
            }
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            switch (cut) {
                case MID_BODY -> {
                    out.write("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    out.write(new byte[random.nextInt(20_000)]);
                    out.flush();
                    awaitHandlerStart(socket);
                }
                case MID_RESPONSE -> {
                    out.write("GET /big?1048576 HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    in.readNBytes(1 + random.nextInt(512 << 10));
                }
                case MID_STREAM -> {
                    out.write("GET /endless HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    in.readNBytes(1 + random.nextInt(64 << 10));
                }
            }
        }
    }

    /** Gives the server a moment to hand the part-sent request to the app before the client goes (it answers nothing yet). */
    private static void awaitHandlerStart(Socket socket) throws IOException {
        socket.setSoTimeout(20);
        try {
            socket.getInputStream().read();
        } catch (java.net.SocketTimeoutException e) {
            // the expected silence
        }
    }

    record Snapshot(long rss, long heap, long fds, long objects, long committed, long direct) {
        @Override
        public String toString() {
            return "RSS %,d KiB, heap used %,d KiB (committed %,d KiB), Netty direct %,d KiB, fds %d, Python objects %,d"
                    .formatted(rss >> 10, heap >> 10, committed >> 10, direct >> 10, fds, objects);
        }

        static Snapshot take(int port) throws IOException, InterruptedException {
            String stats = AppState.awaitIdle(port); // its gc.collect() first, then the Java side
            System.gc();
            Runtime runtime = Runtime.getRuntime();
            long heap = runtime.totalMemory() - runtime.freeMemory();
            long rss = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                    .map(l -> Long.parseLong(l.replaceAll("\\D", "")) << 10).findFirst().orElseThrow();
            long fds;
            try (Stream<Path> open = Files.list(Path.of("/proc/self/fd"))) {
                fds = open.count();
            }
            long direct = io.netty.buffer.ByteBufAllocator.DEFAULT instanceof io.netty.buffer.ByteBufAllocatorMetricProvider metrics
                    ? metrics.metric().usedDirectMemory() : 0;
            return new Snapshot(rss, heap, fds, AppState.count(stats, "objects"), runtime.totalMemory(), direct);
        }
    }
}
