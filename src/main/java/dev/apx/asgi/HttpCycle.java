package dev.apx.asgi;

import dev.apx.bridge.Request;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;
import dev.apx.server.Exchange;
import dev.apx.server.Log;
import dev.apx.server.Response;

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
 * the pending futures are owned here until {@link Futures#resolve} hands them to the loop.
 */
final class HttpCycle implements Exchange {
    static final int HIGH_WATER = 256 * 1024;
    private static final Map<String, Object> DISCONNECT = Map.of("type", "http.disconnect");

    private enum Phase { START, BODY, TRAILERS, DONE }

    private final AsgiHttp app;
    private final Response response;
    private final ArrayDeque<byte[]> body = new ArrayDeque<>();
    private int queuedBytes;
    private boolean bodyComplete;
    private boolean lastDelivered;
    private boolean paused;
    private boolean disconnected;
    private Phase phase = Phase.START;
    private boolean trailersExpected;
    private String invalid; // the last message refused, for the log
    private PyRef pendingReceive;
    private PyRef pendingSend;
    private Request request;

    HttpCycle(AsgiHttp app, Response response) {
        this.app = app;
        this.response = response;
    }

    synchronized void started(Request started) {
        this.request = started;
        if (disconnected && !started.isFinished() && pendingReceive == null) {
            app.bridge().cancel(started);
        }
    }

    // ---- the app's side (Python threads, GIL held)

    synchronized Object receive(Gil gil) {
        if (disconnected || phase == Phase.DONE) {
            return DISCONNECT; // as Uvicorn: once the response is complete the cycle is over
        }
        if (!body.isEmpty() || bodyComplete && !lastDelivered) {
            return nextBodyMessage();
        }
        if (pendingReceive != null) {
            return "receive() called again while a previous call is waiting";
        }
        pendingReceive = Futures.pending(gil, app.bridge());
        return pendingReceive;
    }

    private Map<String, Object> nextBodyMessage() {
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
        return Map.of("type", "http.request", "body", chunk, "more_body", more);
    }

    synchronized Object send(Gil gil, Object message) {
        try {
            String type = Messages.type(message);
            Map<?, ?> fields = (Map<?, ?>) message;
            if (disconnected) {
                return null; // as Uvicorn: sends after a disconnect are dropped
            }
            switch (phase) {
                case START -> {
                    expect(type, "http.response.start");
                    int status = Messages.status(fields);
                    List<String[]> headers = Messages.headers(fields);
                    boolean trailers = Messages.flag(fields, "trailers");
                    phase = Phase.BODY;
                    trailersExpected = trailers;
                    response.start(status, headers, trailers);
                }
                case BODY -> {
                    if (type.equals("http.response.pathsend")) {
                        if (!(fields.get("path") instanceof String path)) {
                            throw new Messages.Invalid("http.response.pathsend 'path' must be a str");
                        }
                        phase = trailersExpected ? Phase.TRAILERS : Phase.DONE;
                        try {
                            response.file(Path.of(path));
                        } catch (IOException e) {
                            throw new Messages.Invalid("cannot send file " + path + ": " + e.getMessage());
                        }
                        return null;
                    }
                    expect(type, "http.response.body");
                    byte[] chunk = Messages.bytes(fields, "body");
                    boolean more = Messages.flag(fields, "more_body");
                    if (!more) {
                        phase = trailersExpected ? Phase.TRAILERS : Phase.DONE;
                    }
                    response.body(chunk, more);
                }
                case TRAILERS -> {
                    expect(type, "http.response.trailers");
                    List<String[]> trailers = Messages.headers(fields);
                    if (!Messages.flag(fields, "more_trailers")) {
                        phase = Phase.DONE;
                        response.trailers(trailers);
                    }
                }
                case DONE -> throw new Messages.Invalid("Unexpected ASGI message '" + type + "' sent, after response already completed.");
            }
            if (phase == Phase.DONE && pendingReceive != null) { // e.g. a task listening for the disconnect
                Futures.resolve(app.bridge(), pendingReceive, DISCONNECT);
                pendingReceive = null;
            }
            if (phase != Phase.DONE && !response.isWritable()) {
                pendingSend = Futures.pending(gil, app.bridge());
                if (response.isWritable()) { // became writable in between
                    PyRef ready = pendingSend;
                    pendingSend = null;
                    Futures.resolve(app.bridge(), ready, null);
                    return ready;
                }
                return pendingSend;
            }
            return null;
        } catch (Messages.Invalid e) {
            invalid = e.getMessage();
            return e.getMessage();
        }
    }

    private void expect(String type, String expected) {
        if (!type.equals(expected)) {
            throw new Messages.Invalid("Expected ASGI message '" + expected + "', but got '" + type + "'.");
        }
    }

    // ---- the connection's side (event loop)

    @Override
    public synchronized void body(byte[] chunk, boolean last) {
        bodyComplete = last;
        if (pendingReceive != null) {
            body.add(chunk);
            queuedBytes += chunk.length;
            PyRef waiting = pendingReceive;
            pendingReceive = null;
            Futures.resolve(app.bridge(), waiting, nextBodyMessage());
            return;
        }
        body.add(chunk);
        queuedBytes += chunk.length;
        if (queuedBytes > HIGH_WATER && !paused && !last) {
            paused = true;
            response.pauseReading(true);
        }
    }

    @Override
    public synchronized void disconnected() {
        disconnected = true;
        if (pendingSend != null) {
            Futures.resolve(app.bridge(), pendingSend, null);
            pendingSend = null;
        }
        if (pendingReceive != null) {
            Futures.resolve(app.bridge(), pendingReceive, DISCONNECT);
            pendingReceive = null;
        } else if (request != null && !request.isFinished() && phase != Phase.DONE) {
            app.bridge().cancel(request);
        }
    }

    @Override
    public synchronized void writable() {
        if (pendingSend != null) {
            Futures.resolve(app.bridge(), pendingSend, null);
            pendingSend = null;
        }
    }

    // ---- the end of the coroutine (driving thread, GIL held)

    synchronized void completed(PythonException error) {
        if (pendingReceive != null) {
            pendingReceive.close();
            pendingReceive = null;
        }
        if (pendingSend != null) {
            pendingSend.close();
            pendingSend = null;
        }
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
