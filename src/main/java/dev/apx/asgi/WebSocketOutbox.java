package dev.apx.asgi;

import dev.apx.bridge.Bridge;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.server.WebSocketConnection;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The WebSocket messages the loop thread wrote in one pass of the event loop, sent together at the
 * end of the pass ({@code loop.call_soon}, after the callbacks already queued: the other
 * connections' resumed receives). Each Netty event loop then wakes once for the pass, not once per
 * message, and on one core the two threads take turns per batch instead of per message.
 *
 * <p>Loop thread only, with the GIL (a send elsewhere flushes at once, see {@link WebSocketCycle}).
 * Owns its Java function until {@link #close}.
 */
final class WebSocketOutbox implements AutoCloseable {
    private final Bridge bridge;
    private final PyRef flushCallback;
    private final Set<WebSocketConnection> written = new HashSet<>(); // connections compare by identity
    private boolean scheduled;

    WebSocketOutbox(Bridge bridge) {
        this.bridge = bridge;
        this.flushCallback = bridge.interpreter().call(gil -> gil.function("apx_websocket_flush", (g, args) -> {
            flush();
            return null;
        }));
    }

    /** {@code connection} was written to by the loop thread: it is flushed at the end of this pass. */
    void written(Gil gil, WebSocketConnection connection) {
        written.add(connection);
        if (!scheduled) {
            scheduled = true;
            bridge.loop().callMethod(gil, "call_soon", flushCallback).close();
        }
    }

    private void flush() {
        scheduled = false;
        List<WebSocketConnection> connections = new ArrayList<>(written);
        written.clear();
        WebSocketConnection.flush(connections);
    }

    @Override
    public void close() {
        bridge.interpreter().run(gil -> flushCallback.close());
    }
}
