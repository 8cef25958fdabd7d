package dev.apx.bridge;

import dev.apx.config.LoopKind;

/** The bridge contract in two runtimes at once on uvloop. */
class TwoRuntimesUvloopBridgeTest extends TwoRuntimesContract {
    @Override
    int collisionRequests() {
        return 10_000; // as UvloopBridgeTest: every step on the loop thread, collisions impossible by construction
    }

    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.UVLOOP);
    }
}
