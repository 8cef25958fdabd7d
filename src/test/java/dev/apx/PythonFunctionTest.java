package dev.apx;

import dev.apx.python.TestPython;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Calling real Python functions from Java: values both ways, handles, exceptions, threads, cancellation. */
class PythonFunctionTest {
    static final Path TEST_MODULES = Path.of("target/test-classes/python");
    private static PythonRuntime python;

    @BeforeAll
    static void start() {
        python = Apx.python(TestPython.python());
    }

    private static PythonFunction f(String name) {
        return python.function("apxjava.functions:" + name, TEST_MODULES);
    }

    private static Object get(PythonFuture<?> future) throws Exception {
        return future.get(20, TimeUnit.SECONDS);
    }

    @Test
    void callsPlainAndCoroutineFunctions() throws Exception {
        PythonFunction add = f("add");
        PythonFunction addAsync = f("add_async");
        assertThat(add.isAsync()).isFalse();
        assertThat(addAsync.isAsync()).isTrue();
        assertThat(get(add.call(2, 3))).isEqualTo(5L);
        assertThat(get(add.call("py", "thon"))).isEqualTo("python");
        assertThat(get(addAsync.call(2.5, 1))).isEqualTo(3.5);
        assertThat(get(f("add_later").call(1, 2, 0.01))).isEqualTo(3L);
        assertThat(add.invoke(40, 2)).isEqualTo(42L);
        assertThat(addAsync.invoke(40, 2)).isEqualTo(42L);
        assertThat(get(f("keywords").callWithKeywords(List.of(1), Map.of("c", 30)))).isEqualTo(List.of(1L, 2L, 30L));
        assertThat(get(f("returns_coroutine").call(20, 22))).as("a plain function's coroutine runs as a task").isEqualTo(42L);
        assertThat(f("returns_coroutine").invoke(1, 1)).isEqualTo(2L);
    }

    @Test
    void everyPythonTypeArrivesAsItsJavaType() throws Exception {
        @SuppressWarnings("unchecked")
        Map<Object, Object> all = (Map<Object, Object>) get(f("every_type").call());
        assertThat(all.get("none")).isNull();
        assertThat(all).containsKey("none");
        assertThat(all.get("true")).isEqualTo(Boolean.TRUE);
        assertThat(all.get("int")).isEqualTo(42L);
        assertThat(all.get("negative")).isEqualTo(-7L);
        assertThat(all.get("big")).isEqualTo(BigInteger.TWO.pow(70));
        assertThat(all.get("float")).isEqualTo(1.5);
        assertThat(all.get("str")).isEqualTo("café ☕");
        assertThat((byte[]) all.get("bytes")).containsExactly(0, 0xff);
        assertThat(all.get("list")).isEqualTo(List.of(1L, List.of(2L, List.of(3L, "x"))));
        assertThat(all.get("tuple")).isEqualTo(List.of(1L, "a"));
        assertThat(all.get("dict")).isEqualTo(Map.of("k", Map.of("nested", Arrays.asList(null, false))));
        assertThat(all.get(7L)).isEqualTo("int key");
        assertThat(all.get(List.of(1L, 2L))).isEqualTo("tuple key");
        try (PythonObject set = (PythonObject) all.get("set"); PythonObject date = (PythonObject) all.get("date")) {
            assertThat(set.typeName()).isEqualTo("set");
            assertThat(date.typeName()).isEqualTo("datetime.date");
        }
        assertThat(new ArrayList<>(all.keySet())).as("the dict's order").startsWith("none", "true", "int");
    }

    @Test
    void everyJavaTypeArrivesAsItsPythonType() throws Exception {
        PythonFunction describe = f("describe");
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("a", Arrays.asList(1, null, new Object[] {"t", 2.0}));
        Object[][] cases = {
                {null, "NoneType:None"}, {true, "bool:True"}, {7, "int:7"}, {7L, "int:7"}, {(short) 7, "int:7"}, {(byte) 7, "int:7"},
                {Long.MIN_VALUE, "int:" + Long.MIN_VALUE}, {new BigInteger("123456789012345678901234567890"), "int:123456789012345678901234567890"},
                {0.25, "float:0.25"}, {0.5f, "float:0.5"}, {"é\u20ac", "str:'é€'"}, {new StringBuilder("sb"), "str:'sb'"},
                {new byte[] {1, 2}, "bytes:b'\\x01\\x02'"}, {new Object[] {1, "x"}, "tuple:(1, 'x')"}, {List.of(1, 2), "list:[1, 2]"},
                {nested, "dict:{'a': [1, None, ('t', 2.0)]}"},
        };
        for (Object[] c : cases) {
            assertThat(get(describe.call(c[0]))).as("%s", c[0]).isEqualTo(c[1]);
        }
        PythonFunction echo = f("echo");
        for (Object value : new Object[] {null, false, Long.MAX_VALUE, Long.MIN_VALUE, BigInteger.TWO.pow(64), BigInteger.TWO.pow(64).negate(),
                new BigInteger("-9223372036854775809"), -0.0, Double.NaN, "", "x\u0000y", List.of(), Map.of()}) {
            assertThat(get(echo.call(value))).as("%s", value).isEqualTo(value);
        }
        assertThat(get(echo.call(BigInteger.valueOf(5)))).as("an int that fits comes back as Long").isEqualTo(5L);
        assertThat(get(f("big").call(100))).isEqualTo(BigInteger.TWO.pow(100).add(BigInteger.ONE));
    }

    @Test
    void anUnconvertibleArgumentFailsAtOnce() {
        PythonFunction echo = f("echo");
        assertThatThrownBy(() -> echo.call(new java.util.Date())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.util.Date");
        assertThatThrownBy(() -> echo.call(List.of(Map.of("k", new Object())))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> echo.invoke(Thread.currentThread())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void handlesAreTheSameObjectAndReleasedOnClose() throws Exception {
        PythonFunction make = f("make_token");
        PythonFunction label = f("token_label");
        PythonFunction released = f("released_labels");
        PythonObject token = (PythonObject) get(make.call("h1"));
        assertThat(token.typeName()).isEqualTo("apxjava.functions.Token");
        assertThat(get(label.call(token))).isEqualTo("h1");
        assertThat(label.invoke(token)).isEqualTo("h1");
        assertThatThrownBy(() -> label.call(List.of(token)).join()).cause().isInstanceOf(PythonCallException.class)
                .hasMessageContaining("'list' object has no attribute 'label'");
        assertThat(get(f("echo").call(Map.of("t", token)))).isInstanceOfSatisfying(Map.class, m -> {
            try (PythonObject back = (PythonObject) m.get("t")) {
                assertThat(back.typeName()).isEqualTo("apxjava.functions.Token");
            }
        });
        Thread.sleep(200);
        assertThat((List<Object>) get(released.call())).as("still held by the first handle").doesNotContain("h1");
        token.close();
        token.close(); // harmless
        assertThat(token.isClosed()).isTrue();
        assertThat(waitFor(() -> (List<Object>) uncheckedGet(released.call()), l -> l.contains("h1"))).contains("h1");
        assertThatThrownBy(() -> label.call(token)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> label.invoke(List.of(token))).isInstanceOf(IllegalStateException.class);

        PythonObject greeter = (PythonObject) get(python.function("apxjava.functions:Greeter", TEST_MODULES).call("Hello"));
        try (greeter) {
            assertThat(get(f("greeting").call(greeter, "Ann"))).isEqualTo("Hello, Ann");
        }
        // an invoke()d result's handle too
        try (PythonObject direct = (PythonObject) make.invoke("h2")) {
            assertThat(get(f("holders").call("h2"))).isEqualTo(1L);
        }
        assertThat(waitFor(() -> (List<Object>) uncheckedGet(released.call()), l -> l.contains("h2"))).contains("h2");
    }

    @Test
    void aPythonExceptionCarriesTypeMessageAndTraceback() throws Exception {
        assertThatThrownBy(() -> get(f("raises").call("boom")))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(PythonCallException.class, e -> {
                    assertThat(e.pythonType()).isEqualTo("ValueError");
                    assertThat(e.pythonMessage()).isEqualTo("boom");
                    assertThat(e.getMessage()).isEqualTo("ValueError: boom");
                    assertThat(e.pythonTraceback()).startsWith("Traceback (most recent call last):")
                            .contains("in raises", "in _inner", "raise ValueError(message)").endsWith("ValueError: boom\n");
                });
        assertThatThrownBy(() -> f("raises_async").call("async boom").join())
                .cause().isInstanceOfSatisfying(PythonCallException.class, e -> {
                    assertThat(e.pythonType()).isEqualTo("apxjava.functions.AppError");
                    assertThat(e.pythonTraceback()).contains("in raises_async");
                });
        assertThatThrownBy(() -> f("raises").invoke("direct")).isInstanceOf(PythonCallException.class).hasMessage("ValueError: direct");
        assertThatThrownBy(() -> f("add").call(1, "x").join()).cause().hasMessageContaining("TypeError: unsupported operand");
        assertThatThrownBy(() -> f("keywords").callWithKeywords(List.of(), Map.of("z", 1)).join())
                .cause().hasMessageContaining("TypeError").hasMessageContaining("'z'");
    }

    @Test
    void aFunctionThatCannotBeFoundIsAClearError() {
        assertThatThrownBy(() -> python.function("apxjava.nowhere:f", TEST_MODULES)).isInstanceOf(ApxException.class)
                .hasMessageContaining("apxjava.nowhere:f").hasMessageContaining("No module named 'apxjava.nowhere'");
        assertThatThrownBy(() -> f("missing")).isInstanceOf(ApxException.class).hasMessageContaining("has no attribute 'missing'");
        assertThatThrownBy(() -> f("not_callable")).isInstanceOf(ApxException.class).hasMessageContaining("is a int, not a function");
        assertThatThrownBy(() -> python.function("no_colon")).isInstanceOf(ApxException.class).hasMessageContaining("module:function");
    }

    @Test
    void callsRunOnTheLoopThreadAndInvokeOnTheCaller() throws Exception {
        long loopThread = (Long) get(f("where").call());
        @SuppressWarnings("unchecked")
        List<Object> async = (List<Object>) get(f("where_async").call());
        assertThat(async).as("a coroutine runs as a task on the same loop thread").isEqualTo(List.of(loopThread, true));
        long caller = (Long) f("where").invoke();
        assertThat(caller).as("invoke() runs a plain function on the calling thread").isNotEqualTo(loopThread);
        Object[] fromVirtual = new Object[1];
        Thread.ofVirtual().start(() -> fromVirtual[0] = f("where").invoke()).join(20_000);
        assertThat(fromVirtual[0]).as("a virtual thread's invoke() goes through the loop").isEqualTo(loopThread);
    }

    @Test
    void aDependentStageOnTheLoopThreadMayInvokeAPlainFunctionButNotWaitForTheLoop() throws Exception {
        PythonFunction blocks = f("blocks");
        PythonFunction add = f("add");
        PythonFunction addAsync = f("add_async");
        java.util.concurrent.CompletableFuture<Object> plain = blocks.call("d1", 0.2).thenApply(x -> add.invoke(x, "!"));
        java.util.concurrent.CompletableFuture<Object> coroutine = blocks.call("d2", 0.2).thenApply(x -> addAsync.invoke(x, "!"));
        assertThat(plain.get(20, TimeUnit.SECONDS)).isEqualTo("d1!");
        assertThatThrownBy(() -> coroutine.get(20, TimeUnit.SECONDS)).cause().isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("inside Python");
        assertThat(get(addAsync.call(1, 2))).as("the loop goes on").isEqualTo(3L);
    }

    @Test
    void eachCallHasAContextOfItsOwn() throws Exception {
        PythonFunction sets = f("sets_context");
        assertThat(get(sets.call("a"))).isEqualTo("unset");
        assertThat(get(sets.call("b"))).isEqualTo("unset");
        assertThat(sets.invoke("c")).isEqualTo("unset");
        assertThat(sets.invoke("d")).isEqualTo("unset");
    }

    @Test
    void manyConcurrentCallsFromVirtualThreads() throws Exception {
        PythonFunction add = f("add");
        PythonFunction addAsync = f("add_async");
        PythonFunction addLater = f("add_later");
        try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Object>> results = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                long n = i;
                results.add(executor.submit(() -> switch ((int) (n % 4)) {
                    case 0 -> add.call(n, n).get(60, TimeUnit.SECONDS);
                    case 1 -> addAsync.call(n, n).get(60, TimeUnit.SECONDS);
                    case 2 -> addLater.call(n, n, 0.001).get(60, TimeUnit.SECONDS);
                    default -> add.invoke(n, n);
                }));
            }
            for (int i = 0; i < results.size(); i++) {
                assertThat(results.get(i).get(60, TimeUnit.SECONDS)).isEqualTo(2L * i);
            }
        }
        List<PythonFuture<Object>> platform = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            platform.add(i % 2 == 0 ? add.call(i, 1) : addLater.call(i, 1, 0.002));
        }
        for (int i = 0; i < platform.size(); i++) {
            assertThat(get(platform.get(i))).isEqualTo(i + 1L);
        }
    }

    @Test
    void cancelOrTimeoutAndGetTimeoutReachTheCoroutine() throws Exception {
        PythonFunction sleeps = f("sleeps");

        PythonFuture<Object> cancelled = sleeps.call("c1", 30);
        awaitStart("c1");
        assertThat(cancelled.cancel(true)).isTrue();
        assertThat(recordedOutcome("c1")).isEqualTo(List.of("c1 started", "c1 cancelled"));

        PythonFuture<Object> timed = sleeps.call("c2", 30);
        timed.orTimeout(200, TimeUnit.MILLISECONDS);
        assertThatThrownBy(timed::join).hasCauseInstanceOf(TimeoutException.class);
        assertThat(recordedOutcome("c2")).isEqualTo(List.of("c2 started", "c2 cancelled"));

        PythonFuture<Object> waited = sleeps.call("c3", 30);
        assertThatThrownBy(() -> waited.get(200, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(waited.isCancelled()).isTrue();
        assertThat(recordedOutcome("c3")).isEqualTo(List.of("c3 started", "c3 cancelled"));

        PythonFuture<Object> kept = sleeps.call("c4", 0.3);
        assertThatThrownBy(() -> kept.thenApply(x -> x).get(50, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(get(kept)).as("a dependent future's timeout leaves the call running").isEqualTo("c4");
    }

    @Test
    void completeAndCompleteOnTimeoutByTheCallerReachTheCoroutine() throws Exception {
        PythonFunction sleeps = f("sleeps");

        PythonFuture<Object> completed = sleeps.call("v1", 30);
        awaitStart("v1");
        assertThat(completed.complete("the caller's")).isTrue();
        assertThat(get(completed)).isEqualTo("the caller's");
        assertThat(recordedOutcome("v1")).isEqualTo(List.of("v1 started", "v1 cancelled"));

        PythonFuture<Object> fallback = sleeps.call("v2", 30);
        fallback.completeOnTimeout("fallback", 200, TimeUnit.MILLISECONDS);
        assertThat(get(fallback)).isEqualTo("fallback");
        assertThat(recordedOutcome("v2")).isEqualTo(List.of("v2 started", "v2 cancelled"));

        PythonFuture<Object> inTime = sleeps.call("v3", 0.05);
        inTime.completeOnTimeout("fallback", 20, TimeUnit.SECONDS);
        assertThat(get(inTime)).as("the call's own result cancels nothing").isEqualTo("v3");
        assertThat((List<Object>) get(f("recorded").call("v3"))).isEqualTo(List.of("v3 started", "v3 finished"));
    }

    /** Waits (up to 20 s) until {@code sleeps(label, ...)} has recorded its start. */
    private static void awaitStart(String label) throws InterruptedException {
        PythonFunction recorded = f("recorded");
        waitFor(() -> (List<Object>) uncheckedGet(recorded.call(label)), l -> l.contains(label + " started"));
    }

    /** What {@code sleeps(label, ...)} recorded once it recorded how it ended (or after 20 s). */
    private static List<Object> recordedOutcome(String label) throws InterruptedException {
        PythonFunction recorded = f("recorded");
        return waitFor(() -> (List<Object>) uncheckedGet(recorded.call(label)), l -> l.size() > 1);
    }

    @Test
    void aPlainFunctionRunsToItsEndOrNotAtAll() throws Exception {
        PythonFunction blocks = f("blocks");
        PythonFunction recorded = f("recorded");
        PythonFuture<Object> running = blocks.call("b1", 0.5);
        PythonFuture<Object> queued = blocks.call("b2", 0);
        waitFor(() -> (List<Object>) f("recorded").invoke("b1"), l -> !l.isEmpty());
        running.cancel(true);
        queued.cancel(true);
        assertThat(waitFor(() -> (List<Object>) uncheckedGet(recorded.call("b1")), l -> l.size() > 1))
                .as("cannot be interrupted: it finishes, its result unread").isEqualTo(List.of("b1 started", "b1 finished"));
        assertThat((List<Object>) get(recorded.call("b2"))).as("cancelled before its turn: never ran").isEmpty();
    }

    @Test
    void inThreadsKeepsTheLoopFreeAndCancelsTheWaitingTask() throws Exception {
        PythonFunction blocking = f("blocks").inThreads();
        assertThat(blocking.isAsync()).isTrue();
        PythonFuture<Object> slow = blocking.call("t1", 2);
        waitFor(() -> (List<Object>) f("recorded").invoke("t1"), l -> !l.isEmpty());
        long start = System.nanoTime();
        assertThat(get(f("add").call(1, 1))).isEqualTo(2L);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("not held up by the 2 s function").isLessThan(1500);
        slow.cancel(true);
        assertThatThrownBy(slow::join).isInstanceOf(CancellationException.class);
        assertThat(get(blocking.call("t2", 0))).isEqualTo("t2");
        assertThatThrownBy(() -> f("add_async").inThreads()).isInstanceOf(IllegalStateException.class);
    }

    private static Object uncheckedGet(PythonFuture<?> future) {
        try {
            return get(future);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Polls {@code value} until {@code done} (20 s at most); returns the last value. */
    static <T> T waitFor(Supplier<T> value, java.util.function.Predicate<T> done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        T last = value.get();
        while (!done.test(last) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            last = value.get();
        }
        return last;
    }
}
