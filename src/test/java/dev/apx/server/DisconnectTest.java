package dev.apx.server;

import dev.apx.log.Log;
import dev.apx.python.TestPython;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients that abort at random points ({@link Aborts}) against a server in this JVM. Afterwards every
 * handler has ended, each one that was cut off having got {@code http.disconnect} or
 * {@code CancelledError} (hostile_apps counts the outcomes), and the heap (after a GC), Netty's direct
 * memory, open file descriptors and Python's live object count are back within the bounds below of
 * where they stood after the first quarter of the run (the warm-up: JIT, heap sizing, buffer pools).
 *
 * <p>The process's RSS is measured by DisconnectIT, on apx in a process of its own: this JVM's RSS also
 * holds the other tests' runtimes and heap, and swings by 70-120 MB between quarters on its own.
 * 400 aborts here in every lane, 2,000 there; {@code bench/disconnects.sh} runs
 * 100,000 ({@code -Dapx.disconnects=N}).
 */
class DisconnectTest {
    private static final int CASES = Integer.getInteger("apx.disconnects", 400);
    private static final long HEAP_BOUND = 32L << 20;
    private static final long DIRECT_BOUND = 16L << 20;
    private static final long FD_BOUND = 16;
    private static final long OBJECT_BOUND = 2_000;

    @Test
    void abortedRequestsAreAllEndedAndLeakNothing() throws Exception {
        ServerConfig config = ServerConfig.defaults().withAccessLog(false);
        Log.setLevel(Log.Level.ERROR);
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", config)) {
            Aborts aborts = new Aborts();
            List<Snapshot> quarters = aborts.runInQuarters(server.port(), CASES, () -> Snapshot.take(server.port()));
            Snapshot before = quarters.getFirst();
            Snapshot after = quarters.getLast();
            String stats = AppState.awaitIdle(server.port());

            System.out.printf("DisconnectTest: %,d aborts (%s), Python %s%n  outcomes %s%n",
                    CASES, aborts, TestPython.install().minorVersion(), stats);
            for (int q = 0; q < 4; q++) {
                System.out.printf("  after %,6d: %s%n", (q + 1) * CASES / 4, quarters.get(q));
            }
            assertThat(aborts.outcomeProblems(stats, CASES)).isEmpty();
            assertThat(after.heap - before.heap).as("heap growth").isLessThan(HEAP_BOUND);
            assertThat(after.direct - before.direct).as("Netty direct memory growth").isLessThan(DIRECT_BOUND);
            assertThat(after.fds - before.fds).as("open file descriptor growth").isLessThan(FD_BOUND);
            assertThat(after.objects - before.objects).as("Python live object growth").isLessThan(OBJECT_BOUND);
            assertThat(RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
                    .startsWith("HTTP/1.1 200 ");
        } finally {
            Log.setLevel(Log.Level.INFO);
        }
    }

    record Snapshot(long heap, long fds, long objects, long committed, long direct) {
        @Override
        public String toString() {
            return "heap used %,d KiB (committed %,d KiB), Netty direct %,d KiB, fds %d, Python objects %,d"
                    .formatted(heap >> 10, committed >> 10, direct >> 10, fds, objects);
        }

        static Snapshot take(int port) throws IOException, InterruptedException {
            String stats = AppState.awaitIdle(port); // its gc.collect() first, then the Java side
            System.gc();
            Runtime runtime = Runtime.getRuntime();
            long heap = runtime.totalMemory() - runtime.freeMemory();
            long fds;
            try (Stream<Path> open = Files.list(Path.of("/proc/self/fd"))) {
                fds = open.count();
            }
            long direct = io.netty.buffer.ByteBufAllocator.DEFAULT instanceof io.netty.buffer.ByteBufAllocatorMetricProvider metrics
                    ? metrics.metric().usedDirectMemory() : 0;
            return new Snapshot(heap, fds, AppState.count(stats, "objects"), runtime.totalMemory(), direct);
        }
    }
}
