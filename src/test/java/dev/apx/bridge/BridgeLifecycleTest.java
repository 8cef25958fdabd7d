package dev.apx.bridge;

import dev.apx.config.LoopKind;
import dev.apx.python.TestPython;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bridges start, fail to start and stop without harming the interpreter or each other. */
class BridgeLifecycleTest {
    @Test
    void aBridgeThatCannotStartSaysWhyAndTheNextOneWorks() throws Exception {
        BridgeConfig impossible = BridgeConfig.defaults().withLoop(LoopKind.UVLOOP).withStartMode(StartMode.CALLER);
        assertThatThrownBy(() -> Bridge.start(TestPython.interpreter(), impossible))
                .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("CALLER needs the asyncio loop", "No module named 'uvloop'"));
        try (AsgiHarness harness = new AsgiHarness(BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO))) {
            assertThat(harness.call("trivial").get(5, TimeUnit.SECONDS).body()).isEqualTo("ok");
        }
    }

    @Test
    void bridgesComeAndGo() throws Exception {
        for (int i = 0; i < 3; i++) {
            try (AsgiHarness harness = new AsgiHarness(BridgeConfig.defaults())) {
                assertThat(harness.call("sleeper").get(5, TimeUnit.SECONDS).body()).isEqualTo("slept");
            }
        }
    }
}
