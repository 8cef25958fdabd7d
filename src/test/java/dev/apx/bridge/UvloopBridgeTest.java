package dev.apx.bridge;

import dev.apx.python.TestPython;

/** uvloop; its wheels exist for CPython 3.11 only, so this class runs in the 3.11 fork and is skipped in the others. */
class UvloopBridgeTest extends BridgeContract {
    @Override
    boolean supported() {
        return TestPython.install().minorVersion().equals("3.11");
    }

    @Override
    int collisionRequests() {
        return 10_000; // no step ever runs off the loop thread here: collisions are impossible by construction
    }

    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.UVLOOP);
    }
}
