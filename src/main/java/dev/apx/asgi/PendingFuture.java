package dev.apx.asgi;

import dev.apx.bridge.Bridge;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;

/**
 * The one future an app may be awaiting in a cycle's {@code receive()} or {@code send()}: owned
 * here from its creation until it is resolved (handed to the loop) or dropped. Guarded by the
 * owning cycle's lock.
 */
public final class PendingFuture {
    private final Bridge bridge;
    private PyRef future;

    public PendingFuture(Bridge bridge) {
        this.bridge = bridge;
    }

    public boolean isSet() {
        return future != null;
    }

    /** A new future on the loop, owned here until resolved or dropped; returned for the app to await. */
    public PyRef create(Gil gil) {
        future = Futures.pending(gil, bridge);
        return future;
    }

    /** Hands the future over (to resolve it at once and return it to the app), leaving this empty. */
    PyRef take() {
        PyRef taken = future;
        future = null;
        return taken;
    }

    /** Resolves the future with {@code value} on the loop, if there is one. Any thread. */
    public void resolve(Object value) {
        if (future != null) {
            Futures.resolve(bridge, take(), value);
        }
    }

    /** Releases the future unresolved: its coroutine has ended. Driving thread, GIL held. */
    public void drop() {
        if (future != null) {
            take().close();
        }
    }
}
