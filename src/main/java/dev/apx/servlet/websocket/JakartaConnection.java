package dev.apx.servlet.websocket;

import dev.apx.log.Log;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.api.WebSocketConnection;
import dev.apx.server.api.WebSocketSession;
import jakarta.websocket.CloseReason;
import jakarta.websocket.Endpoint;
import jakarta.websocket.SendHandler;
import jakarta.websocket.SendResult;
import jakarta.websocket.Session;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A {@link WebSocketConnection} over a Jakarta WebSocket {@link Session}: what the app decides about
 * the handshake ({@link #decision}), then its messages, sent one at a time with the asynchronous
 * remote (a container may refuse a send while another is in flight). What the app sends before the
 * container has opened the session waits in the queue. {@link #isWritable} is false above
 * {@link #HIGH_WATER} queued bytes; the app's {@code send()} then waits for {@link WebSocketSession#writable}.
 *
 * <p>Reading: the Jakarta API has no pause, so a paused connection holds the container's thread in
 * the message handler until the app has taken its queue down; the container reads no further frame
 * meanwhile. Locks: the send queue and the pause flag are guarded by {@code this}; nothing calls the
 * app's session while holding it (the session calls in here holding its own lock).
 */
final class JakartaConnection implements WebSocketConnection {
    static final int HIGH_WATER = 64 * 1024;
    /** As apx's own server's {@code --ws-max-size} default (Uvicorn's): larger messages close with 1009. */
    static final int MAX_MESSAGE = WebSocketConfig.defaults().maxSize();

    /** The app's answer to the upgrade request: accepted with a subprotocol and headers, or a denial response. */
    record Decision(boolean accepted, String subprotocol, List<String[]> headers, int status, byte[] body) {
    }

    private final CompletableFuture<Decision> decision = new CompletableFuture<>();
    private final AsgiEndpoint endpoint = new AsgiEndpoint(this);
    private volatile WebSocketSession app;

    private Session session; // null until the container has opened it
    private final ArrayDeque<Object> queue = new ArrayDeque<>(); // String, byte[] or CloseReason
    private long queuedBytes;
    private boolean sending;
    private boolean pumping;
    private boolean closing; // the close is queued or sent: later messages are dropped
    private boolean ended; // the session is over
    private boolean wantWritable;
    private boolean paused;

    void session(WebSocketSession session) {
        this.app = session;
    }

    Endpoint endpoint() {
        return endpoint;
    }

    /** Waits for the app's accept or denial; the app always gives one (a 500 denial when it fails before deciding). */
    Decision decision() throws InterruptedException {
        try {
            return decision.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** The container did not complete the upgrade the app accepted. */
    void upgradeFailed() {
        ended(1006, "");
    }

    // ---- the app's side (any thread)

    @Override
    public void accept(String subprotocol, List<String[]> headers) {
        decision.complete(new Decision(true, subprotocol, headers, 101, null));
    }

    @Override
    public void deny(int status, List<String[]> headers, byte[] body) {
        decision.complete(new Decision(false, null, headers, status, body));
    }

    @Override
    public void text(String message) {
        enqueue(message, message.length());
    }

    @Override
    public void bytes(byte[] message) {
        enqueue(message, message.length);
    }

    @Override
    public void close(int code, String reason) {
        synchronized (this) {
            if (closing || ended) {
                return;
            }
            closing = true;
            queue.add(new CloseReason(CloseReason.CloseCodes.getCloseCode(code), reason));
        }
        pump();
    }

    /**
     * The app returned without closing. apx's own server drops the TCP connection, which the Jakarta
     * API cannot do; the nearest is a close frame with 1011 (internal error).
     */
    @Override
    public void abort() {
        close(1011, "");
    }

    @Override
    public synchronized boolean isWritable() {
        if (queuedBytes < HIGH_WATER || ended) {
            return true;
        }
        wantWritable = true;
        return false;
    }

    @Override
    public synchronized void pauseReading(boolean pause) {
        paused = pause;
        if (!pause) {
            notifyAll();
        }
    }

    private void enqueue(Object message, int size) {
        synchronized (this) {
            if (closing || ended) {
                return;
            }
            queue.add(message);
            queuedBytes += size;
        }
        pump();
    }

    /** Starts queued sends, one at a time; a send that completes on the pumping thread lets its loop go on, not recurse. */
    private void pump() {
        synchronized (this) {
            if (pumping) { // that thread looks at the queue again before it stops
                return;
            }
            pumping = true;
        }
        while (true) {
            Object next;
            Session open;
            synchronized (this) {
                if (sending || session == null || ended || queue.isEmpty()) {
                    pumping = false;
                    return;
                }
                next = queue.poll();
                sending = true;
                open = session;
            }
            start(open, next);
        }
    }

    private void start(Session open, Object message) {
        try {
            switch (message) {
                case String text -> open.getAsyncRemote().sendText(text, new Sent(text.length()));
                case byte[] data -> open.getAsyncRemote().sendBinary(ByteBuffer.wrap(data), new Sent(data.length));
                case CloseReason reason -> {
                    sent(0);
                    open.close(reason);
                }
                default -> throw new IllegalArgumentException(String.valueOf(message));
            }
        } catch (IOException | RuntimeException e) { // the session closed under us: onClose tells the app
            Log.debug("websocket send failed: " + e);
            sent(0);
        }
    }

    private final class Sent implements SendHandler {
        private final int size;

        Sent(int size) {
            this.size = size;
        }

        @Override
        public void onResult(SendResult result) {
            if (!result.isOK()) {
                Log.debug("websocket send failed: " + result.getException());
            }
            sent(size);
        }
    }

    private void sent(int size) {
        boolean wake;
        synchronized (this) {
            sending = false;
            if (!ended) {
                queuedBytes -= size;
            }
            wake = wantWritable && queuedBytes < HIGH_WATER;
            if (wake) {
                wantWritable = false;
            }
        }
        if (wake) {
            app.writable();
        }
        pump();
    }

    // ---- the container's side

    /** The container has opened the session the app accepted: messages flow from here on. */
    void opened(Session opened) {
        opened.setMaxTextMessageBufferSize(MAX_MESSAGE);
        opened.setMaxBinaryMessageBufferSize(MAX_MESSAGE);
        opened.addMessageHandler(String.class, text -> {
            app.text(text);
            holdWhilePaused();
        });
        opened.addMessageHandler(ByteBuffer.class, data -> {
            byte[] copy = new byte[data.remaining()];
            data.get(copy);
            app.bytes(copy);
            holdWhilePaused();
        });
        synchronized (this) {
            session = opened;
        }
        pump();
    }

    private synchronized void holdWhilePaused() {
        while (paused && !ended) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The session is over (either side closed it, or the connection dropped): the app gets websocket.disconnect. */
    void ended(int code, String reason) {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            queue.clear();
            queuedBytes = 0;
            notifyAll();
        }
        WebSocketSession session = app;
        if (session != null) {
            session.closed(code, reason); // also answers a send() waiting for room
        }
    }
}
