package dev.apx.bridge;

import dev.apx.python.TestPython;

/** The bridge contract in two runtimes at once on uvloop (its wheels exist for CPython 3.11 only: skipped on the others). */
class TwoRuntimesUvloopBridgeTest extends TwoRuntimesContract {
    @Override
    boolean supported() {
        return TestPython.install().minorVersion().equals("3.11");
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
