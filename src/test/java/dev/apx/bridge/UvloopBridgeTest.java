package dev.apx.bridge;

import dev.apx.python.TestPython;

/** uvloop: in the forks whose venv has it (3.11, and 3.14 and 3.15 in the Debian testing root), skipped in the others. */
class UvloopBridgeTest extends BridgeContract {
    @Override
    boolean supported() {
        return TestPython.frameworks();
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
