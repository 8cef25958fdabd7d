package dev.apx.bridge;

import dev.apx.python.TestPython;

/** The bridge contract in two runtimes at once on uvloop (where the venv has it: TestPython.frameworks()). */
class TwoRuntimesUvloopBridgeTest extends TwoRuntimesContract {
    @Override
    boolean supported() {
        return TestPython.frameworks();
    }

    @Override
    int collisionRequests() {
        return 10_000; // as UvloopBridgeTest: every step on the loop thread, collisions impossible by construction
    }

    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.UVLOOP);
    }
}
