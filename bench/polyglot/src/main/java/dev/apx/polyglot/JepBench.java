package dev.apx.polyglot;

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

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Jep's warm cost for the functions apx's PythonFunctionBench calls: a {@code SharedInterpreter}
 * made on the benchmark's thread (Jep's rule: only that thread may use it), {@code add} fetched
 * once as a {@code PyCallable} and called. Jep is reached through method handles so that this
 * module builds without Jep's jar; bench/polyglot/run puts it (and libjep) on the paths.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class JepBench {
    private AutoCloseable interpreter;
    private MethodHandle add;
    private MethodHandle addAsync;
    private long n;

    @Setup
    public void start() throws Throwable {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Class<?> shared = Class.forName("jep.SharedInterpreter");
        Class<?> callable = Class.forName("jep.python.PyCallable");
        interpreter = (AutoCloseable) shared.getConstructor().newInstance();
        MethodHandle exec = lookup.findVirtual(shared, "exec", MethodType.methodType(void.class, String.class));
        MethodHandle getValue = lookup.findVirtual(shared, "getValue", MethodType.methodType(Object.class, String.class, Class.class));
        Path calls = Path.of(System.getProperty("calls.py")).toAbsolutePath();
        exec.invoke(interpreter, "import sys, asyncio; sys.path.insert(0, '" + calls.getParent().getParent() + "')");
        exec.invoke(interpreter, "from apxbench.calls import add, add_async");
        exec.invoke(interpreter, "_loop = asyncio.new_event_loop()\ndef run_add_async(a, b): return _loop.run_until_complete(add_async(a, b))");
        MethodHandle call = lookup.findVirtual(callable, "call", MethodType.methodType(Object.class, Object[].class));
        add = call.bindTo(getValue.invoke(interpreter, "add", callable)).asFixedArity();
        addAsync = call.bindTo(getValue.invoke(interpreter, "run_add_async", callable)).asFixedArity();
        if (((Number) add.invoke(new Object[] {40L, 2L})).longValue() != 42) {
            throw new IllegalStateException("add is broken");
        }
    }

    @TearDown
    public void close() throws Exception {
        interpreter.close();
    }

    /** {@code add(n, 1)} */
    @Benchmark
    public Object invoke() throws Throwable {
        return add.invoke(new Object[] {n++, 1L});
    }

    /** {@code loop.run_until_complete(add_async(n, 1))} */
    @Benchmark
    public Object asyncRunUntilComplete() throws Throwable {
        return addAsync.invoke(new Object[] {n++, 1L});
    }
}
