package dev.apx.cli;

import dev.apx.server.Aborts;
import dev.apx.server.AppState;
import dev.apx.server.RawHttp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 2,000 clients that abort at random points ({@link Aborts}) against apx in a process of its own,
 * started with the JVM options users get (bin/jvm.options): every handler ends, and the server
 * process's RSS, open file descriptors and Python's live object count end within the bounds below of
 * where they stood after the first quarter (the warm-up: JIT, heap sizing, buffer pools). Measured on
 * the server's own process, not a test JVM that also holds other tests' runtimes (DisconnectTest runs
 * the same clients against a server in the test JVM, with its heap and direct memory).
 */
class DisconnectIT {
    private static final int CASES = Integer.getInteger("apx.disconnects", 2_000);
    private static final long RSS_BOUND = 64L << 20;
    private static final long FD_BOUND = 16;
    private static final long OBJECT_BOUND = 2_000;
    private static final Path JCMD = Path.of(ProcessHandle.current().info().command().orElseThrow()).resolveSibling("jcmd");

    @Test
    void abortedRequestsAreAllEndedAndTheServerProcessLeaksNothing(@TempDir Path dir) throws Exception {
        try (ApxProcess apx = ApxProcess.startAsLaunched(dir, Map.of(), "--no-access-log", "apxtest.hostile_apps:app")) {
            Aborts aborts = new Aborts();
            List<Snapshot> quarters = aborts.runInQuarters(apx.port, CASES, () -> Snapshot.take(apx));
            String stats = AppState.awaitIdle(apx.port);
            System.out.printf("DisconnectIT: %,d aborts (%s)%n  outcomes %s%n", CASES, aborts, stats);
            for (int q = 0; q < 4; q++) {
                System.out.printf("  after %,6d: %s%n", (q + 1) * CASES / 4, quarters.get(q));
            }
            Snapshot before = quarters.getFirst();
            Snapshot after = quarters.getLast();
            assertThat(aborts.outcomeProblems(stats, CASES)).isEmpty();
            assertThat(after.rss - before.rss).as("server RSS growth").isLessThan(RSS_BOUND);
            assertThat(after.fds - before.fds).as("server open file descriptor growth").isLessThan(FD_BOUND);
            assertThat(after.objects - before.objects).as("Python live object growth").isLessThan(OBJECT_BOUND);
            assertThat(RawHttp.exchange(apx.port, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
                    .startsWith("HTTP/1.1 200 ");
            apx.assertNoJavaStackTrace();
        }
    }

    record Snapshot(long rss, long fds, long objects) {
        @Override
        public String toString() {
            return "RSS %,d KiB, fds %d, Python objects %,d".formatted(rss >> 10, fds, objects);
        }

        /** After the app's gc.collect() and malloc_trim (its /stats) and a full GC of the server's heap. */
        static Snapshot take(ApxProcess apx) throws IOException, InterruptedException {
            String stats = AppState.awaitIdle(apx.port);
            Process gc = new ProcessBuilder(JCMD.toString(), String.valueOf(apx.process.pid()), "GC.run")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertThat(gc.waitFor()).as("jcmd GC.run").isZero();
            Path proc = Path.of("/proc", String.valueOf(apx.process.pid()));
            long rss = Files.readAllLines(proc.resolve("status")).stream().filter(l -> l.startsWith("VmRSS:"))
                    .map(l -> Long.parseLong(l.replaceAll("\\D", "")) << 10).findFirst().orElseThrow();
            long fds;
            try (Stream<Path> open = Files.list(proc.resolve("fd"))) {
                fds = open.count();
            }
            return new Snapshot(rss, fds, AppState.count(stats, "objects"));
        }
    }
}
