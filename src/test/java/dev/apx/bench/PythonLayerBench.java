package dev.apx.bench;

import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.TestPython;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The three costs the python layer adds to every request: a Java->Python call, a Python->Java
 * upcall, and entering/leaving the GIL. Run with bench/jmh (Python from -Dapx.test.python).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class PythonLayerBench {
    private static final int BATCH = 1_000;

    private Interpreter python;
    private PyRef trivial;
    private PyRef callMany;
    private PyRef javaIdentity;
    private PyRef javaConverting;
    private PyRef builtinAbs;

    @Setup(Level.Trial)
    public void setUp() {
        python = TestPython.interpreter();
        python.run(gil -> {
            trivial = gil.importModule("apxtest.values").getAttr(gil, "trivial");
            callMany = gil.importModule("apxtest.threads").getAttr(gil, "call_many");
            javaIdentity = gil.function("identity", (g, args) -> args.ref(0));
            javaConverting = gil.function("converting", (g, args) -> args.get(0));
            builtinAbs = gil.importModule("builtins").getAttr(gil, "abs");
        });
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        python.run(gil -> {
            trivial.close();
            callMany.close();
            javaIdentity.close();
            javaConverting.close();
            builtinAbs.close();
        });
    }

    /** {@code trivial()} from Java, result closed: the per-call cost inside a GIL section. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void javaCallsPython() {
        python.run(gil -> {
            for (int i = 0; i < BATCH; i++) {
                trivial.call(gil).close();
            }
        });
    }

    /** A Python loop calling a Java function: compare with {@link #pythonCallsBuiltin}. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Object pythonCallsJava() {
        return python.call(gil -> callMany.call(gil, javaIdentity, BATCH).toJava(gil));
    }

    /** As above, the Java function converting its int argument to a Long and back. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Object pythonCallsJavaConverting() {
        return python.call(gil -> callMany.call(gil, javaConverting, BATCH).toJava(gil));
    }

    /** The same Python loop calling the builtin {@code abs}: the floor the upcall is measured against. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Object pythonCallsBuiltin() {
        return python.call(gil -> callMany.call(gil, builtinAbs, BATCH).toJava(gil));
    }

    /** Take and release the GIL from a thread that does not hold it (uncontended). */
    @Benchmark
    public Object gilEnterLeave() {
        return python.call(gil -> gil);
    }
}
