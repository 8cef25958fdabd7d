package dev.apx.bridge;

/** asyncio, every step on the loop thread. */
class AsyncioLoopBridgeTest extends BridgeContract {
    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO).withStartMode(StartMode.LOOP);
    }
}
