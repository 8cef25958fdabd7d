package dev.apx.asgi;

import dev.apx.bridge.Bridge;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;

/**
 * Java-completed awaitables. A pending future made here is owned by the caller until
 * {@link #resolve} hands it to the loop thread, which sets its result and releases it.
 */
public final class Futures {
    private Futures() {
    }

    public static PyRef pending(Gil gil, Bridge bridge) {
        return bridge.newFuture(gil);
    }

    /** Sets {@code value} (Java, converted on the loop) unless done, then releases {@code future}. Any thread. */
    public static void resolve(Bridge bridge, PyRef future, Object value) {
        bridge.runOnLoop(gil -> {
            try (future) {
                try (PyRef done = future.callMethod(gil, "done")) {
                    if (!done.isTrue(gil)) {
                        future.callMethod(gil, "set_result", value).close();
                    }
                }
            }
        });
    }

    /** {@code _apx._asgi.awaitable(function)}: the ASGI callable around a Java function. */
    public static PyRef awaitable(Gil gil, PyRef wrapper, String name, dev.apx.python.JavaFunction function) {
        try (PyRef java = gil.function(name, function)) {
            return wrapper.call(gil, java);
        }
    }
}
