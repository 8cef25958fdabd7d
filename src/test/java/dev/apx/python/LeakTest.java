package dev.apx.python;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A million iterations of conversions, calls, upcalls and caught exceptions leave Python's live
 * objects and the process RSS flat.
 *
 * <p>Bounds: at most {@value #MAX_OBJECT_GROWTH} more gc-tracked objects and allocated blocks
 * (a leak of one object per iteration would add a million), and at most {@value #MAX_RSS_GROWTH_MIB}
 * MiB more RSS (a leak of even 64 bytes per iteration would add 61 MiB; the slack is the JVM's
 * own heap and JIT settling).
 */
class LeakTest {
    private static final int ITERATIONS = 1_000_000;
    private static final int WARM_UP = 100_000;
    private static final int PER_SECTION = 1_000;
    private static final int EXCEPTION_EVERY = 20;
    private static final long MAX_OBJECT_GROWTH = 1_000;
    private static final long MAX_RSS_GROWTH_MIB = 48;

    private final Interpreter python = TestPython.interpreter();

    @Test
    void aMillionIterationsLeaveMemoryFlat() throws Exception {
        liveObjects(); // frees what earlier tests in this JVM left in cycles (an app's tracebacks hold callables)
        int callablesBefore = python.callables().size();
        run(WARM_UP);
        List<?> before = liveObjects();
        long rssBefore = rssBytes();

        run(ITERATIONS);

        List<?> after = liveObjects();
        long rssAfter = rssBytes();
        long gcObjects = (Long) after.get(0) - (Long) before.get(0);
        long blocks = (Long) after.get(1) - (Long) before.get(1);
        long rssMib = (rssAfter - rssBefore) >> 20;
        System.out.printf("leak check (Python %s): gc objects %+d, allocated blocks %+d, RSS %+d MiB%n",
                python.install().version(), gcObjects, blocks, rssMib);
        assertThat(gcObjects).isLessThan(MAX_OBJECT_GROWTH);
        assertThat(blocks).isLessThan(MAX_OBJECT_GROWTH);
        assertThat(rssMib).isLessThan(MAX_RSS_GROWTH_MIB);
        assertThat(python.callables().size()).isEqualTo(callablesBefore);
    }

    private void run(int iterations) {
        byte[] payload = new byte[256];
        for (int done = 0; done < iterations; done += PER_SECTION) {
            int start = done;
            python.run(gil -> {
                try (PyRef values = gil.importModule("apxtest.values");
                     PyRef add = values.getAttr(gil, "add");
                     PyRef errors = gil.importModule("apxtest.errors");
                     PyRef fail = errors.getAttr(gil, "fail_value");
                     PyRef twice = gil.function("twice", (g, args) -> (Long) args.get(0) * 2)) {
                    for (int i = start; i < start + PER_SECTION; i++) {
                        try (PyRef map = gil.of(Map.of("i", i, "s", "é" + i, "b", payload, "l", List.of(i, 2.5, true)))) {
                            Map<?, ?> back = (Map<?, ?>) map.toJava(gil);
                            if (!Long.valueOf(i).equals(back.get("i"))) {
                                throw new AssertionError("conversion broke at " + i);
                            }
                        }
                        try (PyRef sum = add.callWithKeywords(gil, List.of(i), Map.of("b", 1, "scale", 2));
                             PyRef doubled = twice.call(gil, sum)) {
                            if (!Long.valueOf(4L * (i + 1)).equals(doubled.toJava(gil))) {
                                throw new AssertionError("call broke at " + i);
                            }
                        }
                        if (i % EXCEPTION_EVERY == 0) {
                            try {
                                fail.call(gil, "boom " + i).close();
                                throw new AssertionError("no exception");
                            } catch (PythonException expected) {
                                expected.exception().close();
                            }
                        }
                    }
                }
            });
        }
    }

    /** gc-tracked objects and allocated blocks, after a full collection on both sides. */
    private List<?> liveObjects() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50); // let the Cleaner queue the references nobody closed
        }
        return python.call(gil -> (List<?>) TestPython.callHelper(gil, "values", "live_objects"));
    }

    private static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
