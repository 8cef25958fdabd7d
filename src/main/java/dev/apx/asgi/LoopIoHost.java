package dev.apx.asgi;

import dev.apx.bridge.Bridge;
import dev.apx.server.api.IoHost;

/**
 * The asyncio loop thread as the server's I/O thread ({@code --io loop}): the one place that joins
 * the server's view of a host thread to the bridge's loop.
 */
public record LoopIoHost(Bridge bridge) implements IoHost {
    @Override
    public Thread thread() {
        return bridge.loopThread();
    }

    @Override
    public void watch(int fd, Runnable onReadable) {
        bridge.watchReadable(fd, onReadable);
    }

    @Override
    public void unwatch(int fd) {
        bridge.unwatch(fd);
    }

    @Override
    public void execute(Runnable task) {
        bridge.runOnLoop(gil -> task.run());
    }

    @Override
    public void hooks(Runnable atSafePoint, java.util.function.BooleanSupplier hasWork, Runnable afterOtherCall) {
        bridge.hostIo(atSafePoint, hasWork, afterOtherCall);
    }
}
