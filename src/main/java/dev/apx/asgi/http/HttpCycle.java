package dev.apx.asgi.http;

import dev.apx.asgi.Messages;
import dev.apx.asgi.PendingFuture;
import dev.apx.bridge.Bridge;
import dev.apx.bridge.Request;
import dev.apx.log.Log;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;
import dev.apx.server.api.Exchange;
import dev.apx.server.api.Response;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;

/**
 * One HTTP request/response cycle: the state behind the app's {@code receive} and {@code send},
 * fed by the connection ({@link Exchange}, event-loop thread) and by the app (Python threads).
 *
 * <p>Flow control: body chunks queue here; above {@link #HIGH_WATER} bytes the connection stops
 * reading until {@code receive()} drains the queue. {@code send()} returns a pending future while
 * the socket is not writable, resolved by {@link #writable}. Every field is guarded by {@code this};
 * the pending futures are owned here until {@code Futures.resolve} hands them to the loop.
 */
final class HttpCycle implements Exchange {
    static final int HIGH_WATER = 256 * 1024;

    private enum Phase { START, BODY, TRAILERS, DONE }

    private final Bridge bridge;
    private final Response response;
    private final ArrayDeque<byte[]> body = new ArrayDeque<>();
    private int queuedBytes;
    private boolean bodyComplete;
    private boolean lastDelivered;
    private boolean paused;
    private boolean disconnected;
    private boolean bodyWanted; // the connection was told the app asked for the body (Expect: 100-continue)
    private Phase phase = Phase.START;
    private boolean trailersExpected;
    private long owed = -1; // body bytes the app's content-length still promises; -1: no length to keep to
    private String invalid; // the last message refused, for the log
    private final PendingFuture pendingReceive;
    private final PendingFuture pendingSend;
    private Request request;
    private Runnable deferredStart; // the app's start, held until the connection delivered what it read (startAfterRead)

    HttpCycle(Bridge bridge, Response response) {
        this.bridge = bridge;
        this.pendingReceive = new PendingFuture(bridge);
        this.pendingSend = new PendingFuture(bridge);
        this.response = response;
    }

    /**
     * Starts the app with {@code start} once the connection has delivered what it read with the
     * head ({@link #readComplete}), or the whole body, or as soon as reading would pause. A body
     * that came with the head is then queued before the app's first {@code receive()}, which
     * answers at once instead of suspending until the body's first chunk resumes it through the
     * loop (Uvicorn likewise starts the app's task after the bytes it read are parsed).
     */
    synchronized void startAfterRead(Runnable start) {
        deferredStart = start;
    }

    private synchronized Runnable takeDeferredStart() {
        Runnable start = deferredStart;
        deferredStart = null;
        return start;
    }

    /** Runs a deferred start outside this object's lock: the app's first step takes the GIL, and other threads holding it lock this. */
    private void startIfDeferred() {
        Runnable start = takeDeferredStart();
        if (start != null) {
            start.run();
        }
    }

    @Override
    public void readComplete() {
        startIfDeferred();
    }

    synchronized void started(Request started) {
        this.request = started;
        if (disconnected && !started.isFinished() && !pendingReceive.isSet()) {
            bridge.cancel(started);
        }
    }

    // ---- the app's side (Python threads, GIL held; _apx._asgi.http_runner calls these)

    /** The next {@code (body, more_body)}, None once the cycle is over, or a pending future of either. */
    synchronized Object receive(Gil gil) {
        if (disconnected || phase == Phase.DONE) {
            return null; // http.disconnect, as Uvicorn: once the response is complete the cycle is over
        }
        if (!bodyWanted) { // Uvicorn sends a 100 Continue owed at the first receive(), body already there or not
            bodyWanted = true;
            response.bodyWanted();
        }
        if (!body.isEmpty() || bodyComplete && !lastDelivered) {
            return nextBodyMessage();
        }
        if (pendingReceive.isSet()) {
            return "receive() called again while a previous call is waiting";
        }
        return pendingReceive.create(gil);
    }

    private Object[] nextBodyMessage() {
        byte[] chunk;
        if (body.size() == 1) {
            chunk = body.poll();
        } else {
            chunk = new byte[queuedBytes];
            int at = 0;
            for (byte[] part : body) {
                System.arraycopy(part, 0, chunk, at, part.length);
                at += part.length;
            }
            body.clear();
        }
        queuedBytes = 0;
        if (chunk == null) {
            chunk = new byte[0];
        }
        if (paused) {
            paused = false;
            response.pauseReading(false);
        }
        boolean more = !bodyComplete;
        lastDelivered = !more;
        return new Object[]{chunk, more};
    }

    /** Any message, whole (the uncommon types, and whatever is not a dict). */
    synchronized Object send(Gil gil, Object message) {
        try {
            String type = Messages.type(message);
            Map<?, ?> fields = (Map<?, ?>) message;
            return switch (type) {
                case "http.response.start" -> start(gil, fields.get("status"), fields.get("headers"), fields.get("trailers"));
                case "http.response.body" -> body(gil, fields.get("body"), fields.get("more_body"));
                case "http.response.pathsend" -> pathsend(gil, fields.get("path"));
                case "http.response.trailers" -> trailers(gil, fields.get("headers"), fields.get("more_trailers"));
                default -> throw unexpected(type);
            };
        } catch (Messages.Invalid e) {
            return refused(e);
        }
    }

    /** {@code http.response.start}; fields as converted, None where absent. */
    synchronized Object start(Gil gil, Object status, Object headers, Object trailers) {
        try {
            if (disconnected) {
                return null; // as Uvicorn: sends after a disconnect are dropped
            }
            if (phase != Phase.START) {
                throw unexpected("http.response.start");
            }
            int code = Messages.status(status);
            List<String[]> list = Messages.headers(headers);
            long length = Messages.contentLength(list);
            boolean announced = Messages.flag("trailers", trailers);
            phase = Phase.BODY;
            trailersExpected = announced;
            response.start(code, list, announced);
            owed = response.bodyIgnored() ? -1 : length;
            return afterSend(gil);
        } catch (Messages.Invalid e) {
            return refused(e);
        }
    }

    /** {@code http.response.body}; fields as converted, None where absent. */
    synchronized Object body(Gil gil, Object body, Object moreBody) {
        try {
            if (disconnected) {
                return null; // as Uvicorn: sends after a disconnect are dropped
            }
            if (phase != Phase.BODY) {
                throw unexpected("http.response.body");
            }
            byte[] chunk = Messages.bytes("body", body);
            boolean more = Messages.flag("more_body", moreBody);
            keepToContentLength(chunk, more);
            if (!more) {
                phase = trailersExpected ? Phase.TRAILERS : Phase.DONE;
            }
            response.body(chunk, more);
            return afterSend(gil);
        } catch (Messages.Invalid e) {
            return refused(e);
        }
    }

    /**
     * As Uvicorn: a body longer or shorter than the app's content-length raises in the app, and the
     * connection then closes: what went out so far stays the client's only answer, and no later
     * response on the connection is mistaken for the rest of this one.
     */
    private void keepToContentLength(byte[] chunk, boolean more) {
        if (owed < 0) {
            return;
        }
        if (chunk.length > owed) {
            throw new Messages.Invalid("Response content longer than Content-Length");
        }
        owed -= chunk.length;
        if (!more && owed > 0) {
            response.body(chunk, true); // out it goes, but the response does not end: the close will
            throw new Messages.Invalid("Response content shorter than Content-Length");
        }
    }

    private Object pathsend(Gil gil, Object path) {
        if (disconnected) {
            return null;
        }
        if (phase != Phase.BODY) {
            throw unexpected("http.response.pathsend");
        }
        if (!(path instanceof String file)) {
            throw new Messages.Invalid("http.response.pathsend 'path' must be a str");
        }
        if (owed >= 0) {
            long size = fileSize(file);
            if (size != owed) {
                throw new Messages.Invalid("Response content " + (size > owed ? "longer" : "shorter") + " than Content-Length");
            }
        }
        phase = trailersExpected ? Phase.TRAILERS : Phase.DONE;
        try {
            response.file(Path.of(file));
        } catch (IOException e) {
            throw new Messages.Invalid("cannot send file " + file + ": " + e.getMessage());
        }
        return afterSend(gil);
    }

    private static long fileSize(String file) {
        try {
            return java.nio.file.Files.size(Path.of(file));
        } catch (IOException | RuntimeException e) {
            throw new Messages.Invalid("cannot send file " + file + ": " + e.getMessage());
        }
    }

    private Object trailers(Gil gil, Object headers, Object moreTrailers) {
        if (disconnected) {
            return null;
        }
        if (phase != Phase.TRAILERS) {
            throw unexpected("http.response.trailers");
        }
        List<String[]> trailers = Messages.headers(headers);
        boolean more = Messages.flag("more_trailers", moreTrailers);
        if (!more) {
            phase = Phase.DONE;
            response.trailers(trailers);
        }
        return afterSend(gil);
    }

    private Messages.Invalid unexpected(String type) {
        return new Messages.Invalid(switch (phase) {
            case START -> "Expected ASGI message 'http.response.start', but got '" + type + "'.";
            case BODY -> "Expected ASGI message 'http.response.body', but got '" + type + "'.";
            case TRAILERS -> "Expected ASGI message 'http.response.trailers', but got '" + type + "'.";
            case DONE -> "Unexpected ASGI message '" + type + "' sent, after response already completed.";
        });
    }

    private String refused(Messages.Invalid e) {
        invalid = e.getMessage();
        return e.getMessage();
    }

    /** Once the response is complete a waiting receive() gets http.disconnect; else send() waits while the socket is full. */
    private Object afterSend(Gil gil) {
        if (phase == Phase.DONE && pendingReceive.isSet()) { // e.g. a task listening for the disconnect
            pendingReceive.resolve(null);
        }
        if (phase != Phase.DONE && !response.isWritable()) {
            PyRef waiting = pendingSend.create(gil);
            if (response.isWritable()) { // became writable in between
                pendingSend.resolve(null);
            }
            return waiting;
        }
        return null;
    }

    // ---- the connection's side (event loop)

    @Override
    public void body(byte[] chunk, boolean last) {
        if (queue(chunk, last)) {
            startIfDeferred();
        }
    }

    /** Queues a chunk; true when the app should start now if it has not (the body is complete, or reading pauses). */
    private synchronized boolean queue(byte[] chunk, boolean last) {
        if (bodyComplete) {
            return false; // the end of a bodyless request, already delivered when the cycle opened (AsgiHttp)
        }
        bodyComplete = last;
        if (pendingReceive.isSet()) {
            body.add(chunk);
            queuedBytes += chunk.length;
            pendingReceive.resolve(nextBodyMessage());
            return last;
        }
        body.add(chunk);
        queuedBytes += chunk.length;
        if (queuedBytes > HIGH_WATER && !paused && !last) {
            paused = true;
            response.pauseReading(true);
        }
        return last || paused;
    }

    @Override
    public void disconnected() {
        markDisconnected();
        startIfDeferred(); // as if it had started with the head: its first receive() gets http.disconnect
    }

    private synchronized void markDisconnected() {
        disconnected = true;
        pendingSend.resolve(null);
        if (pendingReceive.isSet()) {
            pendingReceive.resolve(null);
        } else if (request != null && !request.isFinished() && phase != Phase.DONE) {
            bridge.cancel(request);
        }
    }

    @Override
    public void cancel() {
        startIfDeferred();
        cancelStarted();
    }

    private synchronized void cancelStarted() {
        if (request != null && !request.isFinished()) {
            bridge.cancel(request);
        }
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
            if (disconnected && error.pythonType().endsWith("CancelledError")) {
                return;
            }
            String reason = invalid != null ? "Invalid ASGI message: " + invalid + "\n" : "";
            Log.error("Exception in ASGI application\n" + reason + error.pythonTraceback().stripTrailing());
        } else if (phase == Phase.START && !disconnected) { // as Uvicorn: no complaint once the client left
            Log.error("ASGI callable returned without starting response.");
        } else if (phase != Phase.DONE && !disconnected) {
            Log.error("ASGI callable returned without completing response.");
        }
        if (disconnected) {
            return;
        }
        if (phase == Phase.START) {
            phase = Phase.DONE;
            response.fail();
        } else if (phase != Phase.DONE) {
            phase = Phase.DONE;
            response.abort();
        }
    }
}
