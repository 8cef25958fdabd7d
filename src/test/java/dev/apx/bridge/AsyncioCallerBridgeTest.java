package dev.apx.bridge;

/** asyncio, first drive on the caller's thread under the step lock (the default with asyncio). */
class AsyncioCallerBridgeTest extends BridgeContract {
    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO).withStartMode(StartMode.CALLER);
    }
}
