package dev.apx.polyglot;

import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * GraalPy's warm cost for the functions apx's PythonFunctionBench calls (apxbench/calls.py, from
 * {@code -Dcalls.py}): evaluated once with {@code Context.eval}, then called with
 * {@code Value.execute}. The coroutine runs to completion on an asyncio loop made once.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class GraalPyBench {
    private Context context;
    private Value add;
    private Value addAsync;
    private long n;

    @Setup
    public void evaluate() throws IOException {
        context = Context.newBuilder("python").allowAllAccess(true).build();
        context.eval(Source.newBuilder("python", Path.of(System.getProperty("calls.py")).toFile()).build());
        context.eval("python", """
                import asyncio
                _loop = asyncio.new_event_loop()

                def run_add_async(a, b):
                    return _loop.run_until_complete(add_async(a, b))
                """);
        Value bindings = context.getBindings("python");
        add = bindings.getMember("add");
        addAsync = bindings.getMember("run_add_async");
        if (add.execute(40L, 2L).asLong() != 42 || addAsync.execute(40L, 2L).asLong() != 42) {
            throw new IllegalStateException("add is broken");
        }
    }

    @TearDown
    public void close() {
        context.close();
    }

    /** {@code add(n, 1)} */
    @Benchmark
    public long invoke() {
        return add.execute(n++, 1L).asLong();
    }

    /** {@code loop.run_until_complete(add_async(n, 1))} */
    @Benchmark
    public long asyncRunUntilComplete() {
        return addAsync.execute(n++, 1L).asLong();
    }
}
