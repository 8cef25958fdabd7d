package dev.apx.bridge;

import dev.apx.config.LoopKind;

/** The bridge contract in two runtimes at once on asyncio, requests stepped on caller threads (CALLER mode, the default). */
class TwoRuntimesBridgeTest extends TwoRuntimesContract {
    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO);
    }
}
