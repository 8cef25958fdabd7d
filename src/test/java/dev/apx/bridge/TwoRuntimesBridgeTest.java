package dev.apx.bridge;

/** The bridge contract in two runtimes at once on asyncio, requests stepped on caller threads (CALLER mode, the default). */
class TwoRuntimesBridgeTest extends TwoRuntimesContract {
    @Override
    BridgeConfig config() {
        return BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO);
    }
}
