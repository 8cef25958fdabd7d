package dev.apx.bench;

import dev.apx.AppOptions;
import dev.apx.AppRequest;
import dev.apx.AppResponse;
import dev.apx.Apx;
import dev.apx.PythonApp;
import dev.apx.config.Interface;
import dev.apx.python.TestPython;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The cost of one in-process {@link PythonApp#call}: {@code one} waits for each response before the
 * next call (the latency of a call), {@code batch64} keeps 64 in flight (the cost per call when the
 * loop thread is kept busy). Run with {@code bench/jmh PythonAppCallBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class PythonAppCallBench {
    /** hello: examples/hello.py (raw ASGI); fastapi: examples/fastapi_app.py GET /items/1; flask: examples/flask_app.py (WSGI). */
    @Param({"hello", "fastapi", "flask"})
    public String app;

    private PythonApp loaded;
    private AppRequest request;

    @Setup
    public void load() {
        AppOptions options = switch (app) {
            case "hello" -> AppOptions.of("hello:app", Path.of("examples"));
            case "fastapi" -> AppOptions.of("fastapi_app:app", Path.of("examples"));
            case "flask" -> AppOptions.of("flask_app:app", Path.of("examples")).withInterface(Interface.WSGI);
            default -> throw new IllegalArgumentException(app);
        };
        loaded = Apx.python(TestPython.python()).app(options);
        request = AppRequest.get(app.equals("fastapi") ? "/items/1?q=a" : "/");
    }

    @TearDown
    public void close() {
        loaded.close();
    }

    @Benchmark
    public AppResponse one() {
        return loaded.call(request).join();
    }

    @Benchmark
    @OperationsPerInvocation(64)
    public Object batch64() {
        @SuppressWarnings("unchecked")
        CompletableFuture<AppResponse>[] calls = new CompletableFuture[64];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = loaded.call(request);
        }
        return CompletableFuture.allOf(calls).join();
    }
}
