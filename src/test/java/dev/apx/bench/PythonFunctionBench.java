package dev.apx.bench;

import dev.apx.Apx;
import dev.apx.PythonFunction;
import dev.apx.python.TestPython;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The warm cost of calling a trivial Python function from Java ({@code apxbench.calls.add(a, b)}
 * and its {@code async def} twin) through {@link PythonFunction}: {@code invoke} on the calling
 * thread, {@code call(...).join()} through the runtime's loop thread, and {@code call} with 64 in
 * flight. bench/polyglot runs the same functions through GraalPy and Jep.
 * Run with {@code bench/jmh 3.11 PythonFunctionBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class PythonFunctionBench {
    private PythonFunction add;
    private PythonFunction addAsync;
    private long n;

    @Setup
    public void find() {
        var python = Apx.python(TestPython.python());
        Path modules = Path.of("target/test-classes/python");
        add = python.function("apxbench.calls:add", modules);
        addAsync = python.function("apxbench.calls:add_async", modules);
    }

    /** {@code add(n, 1)} on this thread, holding the GIL for the call. */
    @Benchmark
    public Object invoke() {
        return add.invoke(n++, 1L);
    }

    /** {@code add(n, 1)} on the loop thread; this thread waits for the result. */
    @Benchmark
    public Object callJoin() {
        return add.call(n++, 1L).join();
    }

    /** {@code await add_async(n, 1)} as a task of the loop; this thread waits. */
    @Benchmark
    public Object asyncCallJoin() {
        return addAsync.call(n++, 1L).join();
    }

    /** 64 calls of {@code add} in flight: the cost per call while the loop thread is kept busy. */
    @Benchmark
    @OperationsPerInvocation(64)
    public Object callBatch64() {
        CompletableFuture<?>[] calls = new CompletableFuture<?>[64];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = add.call(n++, 1L);
        }
        return CompletableFuture.allOf(calls).join();
    }

    /** As {@link #callBatch64} for {@code add_async}: 64 tasks in flight. */
    @Benchmark
    @OperationsPerInvocation(64)
    public Object asyncCallBatch64() {
        CompletableFuture<?>[] calls = new CompletableFuture<?>[64];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = addAsync.call(n++, 1L);
        }
        return CompletableFuture.allOf(calls).join();
    }
}
