package dev.apx.bridge;

import dev.apx.config.LoopKind;

/** asyncio, every step on the loop thread. */
class AsyncioLoopBridgeTest extends BridgeContract {
    @Override
    int collisionRequests() {
        return 10_000; // no step ever runs off the loop thread here: collisions are impossible by construction
    }

    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO).withStartMode(StartMode.LOOP);
    }
}
