package dev.apx.bridge;

import dev.apx.python.Interpreter;
import dev.apx.python.TestPython;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bridge rules in a runtime of its own (a glibc namespace, {@code --interpreters}) while a
 * bridge in the base runtime serves requests the whole time: two runtimes serving at once, each
 * with its own loop thread and GIL, requests stepped on caller threads (asyncio, CALLER mode).
 */
class TwoRuntimesBridgeTest extends BridgeContract {
    private AsgiHarness base;
    private Thread load;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong served = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO);
    }

    @Override
    Interpreter interpreter() {
        return TestPython.isolated();
    }

    @BeforeAll
    void serveInTheBaseRuntimeMeanwhile() {
        base = new AsgiHarness(config(), TestPython.interpreter());
        load = Thread.ofPlatform().name("base-runtime-load").start(() -> {
            try {
                while (!stop.get()) {
                    CompletableFuture<AsgiHarness.Outcome> outcome = base.call("trivial");
                    assertThat(outcome.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
                    served.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
    }

    @AfterAll
    void theBaseRuntimeServedThroughout() throws InterruptedException {
        stop.set(true);
        load.join(30_000);
        base.close();
        assertThat(failure.get()).isNull();
        assertThat(served.get()).isPositive();
    }
}
