package dev.apx.python;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Whole CPython runtimes side by side in one JVM: the base namespace's (TestPython's) and two more,
 * each in a glibc link-map namespace of its own. They must be separate (own sys.modules, own
 * module globals), run Python in parallel (own GIL), load C extensions in each, and take any
 * platform thread, including one that enters several of them in turn.
 */
class RuntimesTest {
    private static Interpreter base;
    private static Interpreter first;
    private static Interpreter second;

    @BeforeAll
    static void startRuntimes() {
        base = TestPython.interpreter();
        first = isolated();
        second = isolated();
    }

    private static Interpreter isolated() {
        return TestPython.withTestHelpers(Interpreter.startIsolated(TestPython.install()));
    }

    /**
     * Runs a helper on a thread of its own: the test thread is shared with other test classes, and
     * one that drove a request there may have left its loop as the thread's running loop.
     */
    private static Object helper(Interpreter runtime, String function, Object... args) {
        return runtime.call(gil -> TestPython.callHelper(gil, "runtimes", function, args));
    }

    private static Object helperOnItsOwnThread(Interpreter runtime, String function, Object... args) {
        java.util.concurrent.CompletableFuture<Object> result = new java.util.concurrent.CompletableFuture<>();
        Thread.ofPlatform().name("runtimes-helper").start(() -> {
            try {
                result.complete(runtime.call(gil -> TestPython.callHelper(gil, "runtimes", function, args)));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        try {
            return result.get(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void eachRuntimeIsNumberedByItsNamespace() {
        assertThat(base.namespace()).isZero();
        assertThat(first.namespace()).isPositive();
        assertThat(second.namespace()).isGreaterThan(first.namespace());
    }

    @Test
    void eachRuntimeHasItsOwnModulesAndGlobals() {
        List<Interpreter> all = List.of(base, first, second);
        for (int i = 0; i < all.size(); i++) {
            helper(all.get(i), "mark", "runtime " + i);
        }
        for (int i = 0; i < all.size(); i++) {
            assertThat(helper(all.get(i), "marked")).isEqualTo("runtime " + i);
        }
        assertThat(List.of(helper(base, "modules_id"), helper(first, "modules_id"), helper(second, "modules_id")))
                .doesNotHaveDuplicates();
    }

    /**
     * Each runtime has a GIL of its own: while one thread runs Python in the first runtime and never
     * hands its GIL over (the switch interval set beyond the test's length), Python runs to the end
     * in the second runtime, and another thread of the first runtime cannot start. No clock decides
     * the outcome: the holder runs until the test releases it. How fast N runtimes serve is
     * bench/'s business (docs/interpreters.md).
     */
    @Test
    void pythonRunsInOneRuntimeWhileAnotherRuntimeHoldsItsGil() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment release = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment holding = arena.allocate(ValueLayout.JAVA_INT);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<Object> holder = pool.submit(() -> helper(first, "hold_gil_until",
                        release.address(), holding.address(), 120));
                awaitNonZero(holding, holder);

                assertThat(helper(second, "spin", 100_000)).isEqualTo(333328333350000L);
                assertThat(helper(second, "compiled")).isEqualTo(9L);
                assertThat(holder).as("the first runtime's holder, while the second ran").isNotDone();

                Future<Object> sameRuntime = pool.submit(() -> helper(first, "compiled"));
                Thread.sleep(1_000);
                assertThat(sameRuntime).as("a second thread of the holding runtime").isNotDone();

                release.set(ValueLayout.JAVA_INT, 0, 1);
                assertThat(holder.get(60, TimeUnit.SECONDS)).as("the holder saw the release").isEqualTo(true);
                assertThat(sameRuntime.get(60, TimeUnit.SECONDS)).isEqualTo(9L);
            } finally {
                release.set(ValueLayout.JAVA_INT, 0, 1);
                pool.shutdown();
                assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    private static void awaitNonZero(MemorySegment flag, Future<Object> holder) throws Exception {
        while (flag.get(ValueLayout.JAVA_INT, 0) == 0) {
            if (holder.isDone()) {
                throw new AssertionError("the holder ended before it held the GIL: " + holder.get());
            }
            Thread.sleep(5);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void asyncioAndExtensionsRunInEveryRuntimeFromSeveralThreadsAtOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<Object>> results = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                Interpreter runtime = List.of(base, first, second).get(t % 3);
                results.add(pool.submit(() -> List.of(helper(runtime, "compiled"), helper(runtime, "asyncio_round", 20),
                        helper(runtime, "extensions"))));
            }
            for (Future<Object> result : results) {
                List<?> values = (List<?>) result.get(60, TimeUnit.SECONDS);
                assertThat(values.get(0)).isEqualTo(9L);
                assertThat(values.get(1)).isEqualTo(191L);
                assertThat((List<Object>) values.get(2)).contains((Object) "_socket", "_asyncio", "_ssl", "_json", "select");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void pydanticAndUvloopLoadInEveryRuntime() {
        for (Interpreter runtime : List.of(base, first, second)) {
            assertThat(helperOnItsOwnThread(runtime, "pydantic_round")).isEqualTo("{\"name\":\"x\",\"price\":2.5}");
            assertThat(helperOnItsOwnThread(runtime, "uvloop_round")).isEqualTo("uvloop");
        }
    }

    @Test
    void oneThreadEntersEveryRuntimeInTurn() throws Exception {
        for (int round = 0; round < 2; round++) {
            Thread thread = Thread.ofPlatform().unstarted(() -> {
                for (int i = 0; i < 3; i++) {
                    for (Interpreter runtime : List.of(first, base, second)) {
                        assertThat(helper(runtime, "compiled")).isEqualTo(9L);
                        assertThat(helper(runtime, "asyncio_round", 3)).isEqualTo(4L);
                    }
                }
            });
            List<Throwable> failures = new ArrayList<>();
            thread.setUncaughtExceptionHandler((t, e) -> failures.add(e));
            thread.start();
            thread.join(60_000);
            assertThat(failures).isEmpty();
        }
    }

    /**
     * libpython3.13's constructor sets a key of its namespace's fresh libc on the thread that loads it,
     * over the JVM's key 0, which the JVM's signal handler reads to know its thread: the next
     * implicit null check in compiled code on that thread (a SIGSEGV the JVM turns into a
     * NullPointerException) then crashed the JVM.
     */
    @Test
    void theThreadThatLoadedARuntimeStillGetsItsNullPointerExceptions() throws Exception {
        List<Throwable> failures = new ArrayList<>();
        Thread loader = Thread.ofPlatform().unstarted(() -> {
            Interpreter third = isolated();
            assertThat(helper(third, "compiled")).isEqualTo(9L);
            long sum = 0;
            for (int i = 0; i < 300_000; i++) {
                sum += length("x" + (i & 7)); // compiled with an implicit null check
            }
            assertThat(sum).isEqualTo(600_000);
            assertThatThrownBy(() -> length(null)).isInstanceOf(NullPointerException.class);
        });
        loader.setUncaughtExceptionHandler((t, e) -> failures.add(e));
        loader.start();
        loader.join(120_000);
        assertThat(failures).isEmpty();
    }

    private static int length(String s) {
        return s.length();
    }
}
