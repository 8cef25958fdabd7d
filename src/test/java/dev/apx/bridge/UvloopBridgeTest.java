package dev.apx.bridge;

import dev.apx.config.LoopKind;

/** The bridge contract on uvloop. */
class UvloopBridgeTest extends BridgeContract {
    @Override
    int collisionRequests() {
        return 10_000; // no step ever runs off the loop thread here: collisions are impossible by construction
    }

    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.UVLOOP);
    }
}
