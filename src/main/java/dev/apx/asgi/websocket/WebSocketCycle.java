package dev.apx.asgi.websocket;

import dev.apx.asgi.Messages;
import dev.apx.asgi.PendingFuture;
import dev.apx.bridge.Bridge;
import dev.apx.log.Log;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;
import dev.apx.server.api.WebSocketConnection;
import dev.apx.server.api.WebSocketSession;

import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One WebSocket's ASGI state: the queue behind the app's {@code receive}, the handshake/open/
 * closed states behind its {@code send}, fed by the connection ({@link WebSocketSession}, event
 * loop) and by the app (Python threads). Messages and errors follow Uvicorn's wsproto protocol.
 *
 * <p>Flow control: received messages queue here; from {@code --ws-max-queue} messages ({@link WebSocketConnection#maxQueue}) or
 * {@link #HIGH_WATER} bytes the connection stops reading until {@code receive()} brings the queue
 * down to a quarter of that (so it refills before the app finds it empty).
 * {@code send()} returns a pending future while the socket is not writable. Every field is guarded
 * by {@code this}; pending futures are owned here until {@code Futures.resolve} hands them on.
 */
final class WebSocketCycle implements WebSocketSession {
    static final int HIGH_WATER = 1024 * 1024;

    private enum Phase { HANDSHAKE, OPEN, RESPONSE, CLOSED }

    private final Bridge bridge;
    private final WebSocketConnection connection;
    /** {@code websocket.connect} as a map; a data message as {@code {payload}}, the dict made in _apx._websocket. */
    private final ArrayDeque<Object> incoming = new ArrayDeque<>();
    private int queuedBytes;
    private boolean paused;
    private Phase phase = Phase.HANDSHAKE;
    private boolean gone; // the connection is over: sends raise ClientDisconnected
    private Map<String, Object> disconnect; // the last message receive() gives, again and again
    private int responseStatus;
    private List<String[]> responseHeaders;
    private ByteArrayOutputStream responseBody;
    private String invalid;
    private final PendingFuture pendingReceive;
    private final PendingFuture pendingSend;

    WebSocketCycle(Bridge bridge, WebSocketConnection connection) {
        this.bridge = bridge;
        this.pendingReceive = new PendingFuture(bridge);
        this.pendingSend = new PendingFuture(bridge);
        this.connection = connection;
        incoming.add(Map.of("type", "websocket.connect"));
    }

    // ---- the app's side (Python threads, GIL held)

    synchronized Object receive(Gil gil) {
        Object next = incoming.poll();
        if (next != null) {
            if (next instanceof Object[] data) {
                queuedBytes -= data[0] instanceof byte[] b ? b.length : ((String) data[0]).length();
            }
            if (paused && incoming.size() <= connection.maxQueue() / 4 && queuedBytes <= HIGH_WATER / 4) { // refill before it runs dry
                paused = false;
                connection.pauseReading(false);
            }
            return next;
        }
        if (disconnect != null) {
            return disconnect;
        }
        if (pendingReceive.isSet()) {
            return "receive() called again while a previous call is waiting";
        }
        return pendingReceive.create(gil);
    }

    synchronized Object send(Gil gil, Object message) {
        try {
            String type = Messages.type(message);
            Map<?, ?> fields = (Map<?, ?>) message;
            if (gone && phase != Phase.CLOSED) { // after the app's own close it is the app's mistake (below)
                return Boolean.FALSE;
            }
            switch (phase) {
                case HANDSHAKE -> handshake(type, fields);
                case OPEN -> {
                    if (type.equals("websocket.send")) {
                        return sendData(gil, fields.get("bytes"), fields.get("text"));
                    }
                    expect(type, "websocket.close", "Expected ASGI message 'websocket.send' or 'websocket.close', but got '" + type + "'.");
                    int code = closeCode(fields);
                    String reason = fields.get("reason") instanceof String r ? r : "";
                    phase = Phase.CLOSED;
                    end(disconnect(code, reason));
                    connection.close(code, reason);
                }
                case RESPONSE -> {
                    expect(type, "websocket.http.response.body", "Expected ASGI message 'websocket.http.response.body' but got '" + type + "'.");
                    responseBody.writeBytes(Messages.bytes("body", fields.get("body")));
                    if (!Messages.flag("more_body", fields.get("more_body"))) {
                        phase = Phase.CLOSED;
                        end(disconnect(1006, null));
                        connection.deny(responseStatus, responseHeaders, responseBody.toByteArray());
                    }
                }
                case CLOSED -> throw new Messages.Invalid("Unexpected ASGI message '" + type
                        + "', after sending 'websocket.close' or response already completed.");
            }
            return null;
        } catch (Messages.Invalid e) {
            invalid = e.getMessage();
            return e.getMessage();
        }
    }

    private void handshake(String type, Map<?, ?> fields) {
        switch (type) {
            case "websocket.accept" -> {
                Object subprotocol = fields.get("subprotocol");
                if (subprotocol != null && !(subprotocol instanceof String)) {
                    throw new Messages.Invalid("websocket.accept 'subprotocol' must be a str or None, got " + Messages.typeName(subprotocol));
                }
                List<String[]> headers = Messages.headers(fields.get("headers"));
                phase = Phase.OPEN;
                connection.accept((String) subprotocol, headers);
            }
            case "websocket.close" -> { // before accept: as Uvicorn, a 403
                phase = Phase.CLOSED;
                end(disconnect(1006, null));
                connection.deny(403, List.of(), new byte[0]);
            }
            case "websocket.http.response.start" -> {
                if (!(fields.get("status") instanceof Long status) || status < 100 || status >= 600) {
                    throw new Messages.Invalid("Invalid HTTP status code '" + fields.get("status") + "' in response.");
                }
                responseHeaders = Messages.headers(fields.get("headers"));
                responseStatus = status.intValue();
                responseBody = new ByteArrayOutputStream();
                phase = Phase.RESPONSE;
            }
            default -> throw new Messages.Invalid("Expected ASGI message 'websocket.accept', 'websocket.close' "
                    + "or 'websocket.http.response.start' but got '" + type + "'.");
        }
    }

    private static void expect(String type, String expected, String otherwise) {
        if (!type.equals(expected)) {
            throw new Messages.Invalid(otherwise);
        }
    }

    /** An int code the close frame may carry (RFC 6455 7.4), default 1000. */
    private static int closeCode(Map<?, ?> fields) {
        Object value = fields.get("code");
        if (value == null) {
            return 1000;
        }
        if (!(value instanceof Long code)) {
            throw new Messages.Invalid("websocket.close 'code' must be an int, got " + Messages.typeName(value));
        }
        boolean valid = code >= 1000 && code <= 1003 || code >= 1007 && code <= 1014 || code >= 3000 && code <= 4999;
        if (!valid) {
            throw new Messages.Invalid("invalid close code " + code);
        }
        return code.intValue();
    }

    /** {@code websocket.send} on an open connection, its fields as converted (the common case, typed from Python). */
    synchronized Object send(Gil gil, Object bytes, Object text) {
        if (gone || phase != Phase.OPEN) {
            Map<String, Object> message = new LinkedHashMap<>();
            message.put("type", "websocket.send");
            message.put("bytes", bytes);
            message.put("text", text);
            return send(gil, message); // the whole rulebook for the uncommon phases
        }
        try {
            return sendData(gil, bytes, text);
        } catch (Messages.Invalid e) {
            invalid = e.getMessage();
            return e.getMessage();
        }
    }

    private Object sendData(Gil gil, Object bytes, Object text) {
        if (bytes instanceof byte[] data) {
            connection.bytes(data);
        } else if (bytes == null && text instanceof String string) {
            connection.text(string);
        } else {
            throw new Messages.Invalid("websocket.send needs 'bytes' (bytes) or 'text' (str), got bytes="
                    + Messages.typeName(bytes) + " text=" + Messages.typeName(text));
        }
        return waitWritable(gil);
    }

    private Object waitWritable(Gil gil) {
        if (connection.isWritable()) {
            return null;
        }
        PyRef waiting = pendingSend.create(gil);
        if (connection.isWritable()) { // became writable in between
            pendingSend.resolve(null);
        }
        return waiting;
    }

    private static Map<String, Object> disconnect(int code, String reason) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("type", "websocket.disconnect");
        message.put("code", (long) code);
        if (reason != null) {
            message.put("reason", reason);
        }
        return message;
    }

    /** From now on receive() ends with {@code last}; a waiting receive() gets it now. */
    private void end(Map<String, Object> last) {
        if (disconnect != null) {
            return;
        }
        disconnect = last;
        if (pendingReceive.isSet() && incoming.isEmpty()) {
            pendingReceive.resolve(last);
        }
    }

    // ---- the connection's side (event loop)

    @Override
    public synchronized void text(String message) {
        queue(new Object[]{message}, message.length());
    }

    @Override
    public synchronized void bytes(byte[] message) {
        queue(new Object[]{message}, message.length);
    }

    private void queue(Object[] message, int size) {
        if (phase != Phase.OPEN) {
            return;
        }
        if (pendingReceive.isSet()) {
            pendingReceive.resolve(message);
            return;
        }
        incoming.add(message);
        queuedBytes += size;
        if (!paused && (incoming.size() >= connection.maxQueue() || queuedBytes >= HIGH_WATER)) {
            paused = true;
            connection.pauseReading(true);
        }
    }

    @Override
    public synchronized void closed(int code, String reason) {
        gone = true;
        pendingSend.resolve(Boolean.FALSE);
        end(disconnect(code, phase == Phase.OPEN ? reason : null));
    }

    @Override
    public synchronized void writable() {
        pendingSend.resolve(null);
    }

    // ---- the end of the coroutine (driving thread, GIL held)

    synchronized void completed(PythonException error) {
        pendingReceive.drop();
        pendingSend.drop();
        if (error != null) {
            if (error.pythonType().endsWith("ClientDisconnected")) {
                return; // as Uvicorn: the app let the disconnect propagate
            }
            String reason = invalid != null ? "Invalid ASGI message: " + invalid + "\n" : "";
            Log.error("Exception in ASGI application\n" + reason + error.pythonTraceback().stripTrailing());
        } else if (phase == Phase.HANDSHAKE || phase == Phase.RESPONSE) {
            Log.error("ASGI callable returned without completing handshake.");
        }
        if (gone) {
            return;
        }
        switch (phase) {
            case HANDSHAKE -> connection.deny(500, List.<String[]>of(new String[]{"content-type", "text/plain; charset=utf-8"}),
                    "Internal Server Error".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            case RESPONSE -> connection.deny(responseStatus, responseHeaders, responseBody.toByteArray()); // what it has
            case OPEN -> connection.abort(); // as Uvicorn: returning without a close frame drops the connection
            case CLOSED -> {
                // the close handshake (or the denial) finishes on its own
            }
        }
        phase = Phase.CLOSED;
    }
}
