package dev.apx.python;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** Many platform threads entering the interpreter at once. */
class ThreadsTest {
    private static final int THREADS = 8;
    private static final int CALLS = 100_000;

    private final Interpreter python = TestPython.interpreter();

    @Test
    void eightThreadsEachMakeAHundredThousandCallsWithCorrectResults() throws Exception {
        PyRef add = python.call(gil -> gil.importModule("apxtest.values").getAttr(gil, "add"));
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Long>> wrong = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long thread = t;
                wrong.add(pool.submit(() -> {
                    long mismatches = 0;
                    for (int i = 0; i < CALLS; i++) {
                        long a = i;
                        // one GIL entry per call: the most contended way to use the interpreter
                        Object sum = python.call(gil -> {
                            try (PyRef result = add.call(gil, a, thread)) {
                                return result.toJava(gil);
                            }
                        });
                        if (!Long.valueOf(a + thread).equals(sum)) {
                            mismatches++;
                        }
                    }
                    return mismatches;
                }));
            }
            for (Future<Long> result : wrong) {
                assertThat(result.get()).isZero();
            }
        } finally {
            pool.shutdownNow();
            add.close();
        }
    }

    @Test
    void threadsCallingJavaFromPythonWhileOthersCallPython() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Object>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                results.add(pool.submit(() -> python.call(gil -> {
                    try (PyRef identity = gil.function("identity", (g, args) -> args.get(0))) {
                        return TestPython.callHelper(gil, "threads", "call_many", identity, 20_000);
                    }
                })));
            }
            for (Future<Object> result : results) {
                assertThat(result.get()).isEqualTo(19_999L * 20_000 / 2);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
