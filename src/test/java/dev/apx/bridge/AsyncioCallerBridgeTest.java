package dev.apx.bridge;

import dev.apx.config.LoopKind;

/** asyncio, first drive on the caller's thread under the step lock (the default with asyncio). */
class AsyncioCallerBridgeTest extends BridgeContract {
    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO).withStartMode(StartMode.CALLER);
    }
}
