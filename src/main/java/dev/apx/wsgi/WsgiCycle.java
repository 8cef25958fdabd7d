package dev.apx.wsgi;

import dev.apx.log.Log;
import dev.apx.python.Gil;
import dev.apx.python.PythonException;
import dev.apx.server.api.Exchange;
import dev.apx.server.api.Response;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;

/**
 * One WSGI request: the request body on its way to {@code wsgi.input} and the response on its way
 * out, between the connection ({@link Exchange}, event-loop thread) and the blocking thread that
 * runs the app (the {@code _apx._wsgi} upcalls, GIL held).
 *
 * <p>Waiting: a blocking thread that needs body bytes, or a socket that drains, releases the GIL
 * ({@link Gil#allowThreads}) and waits on this object's monitor; the connection's events notify
 * it. The monitor is never held while taking the GIL, and the event loop never takes the GIL, so
 * neither can wait for the other.
 *
 * <p>Memory: the body queue stops the socket above {@link #HIGH_WATER} bytes and resumes it once
 * the app has read it down to {@link #LOW_WATER}; a response chunk is written only while the
 * channel is writable (Netty's high-water mark), so a slow client holds back the app, not memory.
 */
final class WsgiCycle implements Exchange {
    static final int HIGH_WATER = 256 * 1024;
    static final int LOW_WATER = 64 * 1024;
    private static final long RECHECK_MILLIS = 100; // a missed writability event costs at most this

    private final Response response;
    final String label; // "GET /path", for the log
    volatile long startedAt; // when a blocking thread began running it (not when it was queued)
    volatile boolean reportedSlow;
    private final ArrayDeque<byte[]> body = new ArrayDeque<>();
    private int headOffset; // bytes of body.peek() already read
    private int queuedBytes;
    private boolean bodyComplete;
    private boolean paused;
    private boolean disconnected;
    private boolean started;
    private boolean finished; // the response is complete, failed or aborted: nothing more goes out
    private long owed = -1; // body bytes the app's Content-Length still promises; -1: no length

    WsgiCycle(Response response, String label, boolean bodyless) {
        this.response = response;
        this.label = label;
        this.bodyComplete = bodyless;
    }

    // ---- the app's side (a blocking thread, GIL held on entry and on return)

    /**
     * Sends a piece of the body (after the head, on the first call); true once the client is gone.
     * Waits, without the GIL, while the channel is not writable.
     */
    boolean send(Gil gil, Object status, Object headers, byte[] chunk, boolean more) {
        synchronized (this) {
            if (disconnected) {
                return true;
            }
            if (status != null) {
                start(status, headers);
            }
            if (finished) {
                return false; // the Content-Length is met: whatever else the app yields is dropped, as Gunicorn does
            }
            if (owed >= 0) {
                if (chunk.length > owed) {
                    chunk = Arrays.copyOf(chunk, (int) owed);
                }
                owed -= chunk.length;
                if (owed == 0) {
                    more = false; // the whole body is out: end the response now, not after the app's iterable
                } else if (!more) {
                    finished = true;
                    response.body(chunk, true);
                    Log.error("WSGI app " + label + " sent fewer bytes than its Content-Length; closing the connection");
                    response.abort();
                    return false;
                }
            }
            response.body(chunk, more);
            if (!more) {
                finished = true;
                return false;
            }
            if (response.isWritable()) {
                return false;
            }
        }
        gil.allowThreads(this::awaitWritable);
        synchronized (this) {
            return disconnected;
        }
    }

    /** The response head from start_response's status ("200 OK") and headers (a list of (name, value) str pairs). */
    private void start(Object status, Object headers) {
        if (started) {
            return;
        }
        int code = WsgiHeaders.statusCode(status);
        String reason = ((String) status).substring(3).strip();
        List<String[]> list = WsgiHeaders.headers(headers);
        started = true;
        response.start(code, reason, list, false);
        owed = response.bodyIgnored() ? -1 : WsgiHeaders.contentLength(list);
    }

    private synchronized void awaitWritable() {
        try {
            while (!disconnected && !finished && !response.isWritable()) {
                wait(RECHECK_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Up to {@code size} bytes of the request body, waiting without the GIL until some arrive;
     * empty at the end of the body; null when the client left before it ended.
     */
    byte[] read(Gil gil, int size) {
        response.bodyWanted(); // a 100 Continue the client may be waiting for (a no-op unless one is owed)
        synchronized (this) {
            if (!body.isEmpty() || bodyComplete || disconnected) {
                return take(size);
            }
        }
        gil.allowThreads(this::awaitBody);
        synchronized (this) {
            return take(size);
        }
    }

    private synchronized void awaitBody() {
        try {
            while (body.isEmpty() && !bodyComplete && !disconnected) {
                wait();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private byte[] take(int size) {
        if (body.isEmpty()) {
            return bodyComplete ? new byte[0] : null;
        }
        byte[] first = body.peek();
        int available = first.length - headOffset;
        byte[] out;
        if (size >= available) {
            body.poll();
            out = headOffset == 0 ? first : Arrays.copyOfRange(first, headOffset, first.length);
            headOffset = 0;
        } else {
            out = Arrays.copyOfRange(first, headOffset, headOffset + size);
            headOffset += size;
        }
        queuedBytes -= out.length;
        if (paused && queuedBytes <= LOW_WATER) {
            paused = false;
            response.pauseReading(false);
        }
        return out;
    }

    /**
     * {@code wsgi.file_wrapper} over a regular file: sent with zero copies ({@link Response#file}),
     * through {@code /proc/self/fd} so that Java reads the very file the app opened. False when
     * that is not possible or the size disagrees with the Content-Length: the app's iterable is
     * then sent as usual.
     */
    boolean sendFile(Object status, Object headers, long fd, long offset, long count) {
        Path path = Path.of("/proc/self/fd/" + fd);
        if (!Files.isReadable(path)) {
            return false;
        }
        synchronized (this) {
            if (disconnected) {
                return true;
            }
            List<String[]> list = WsgiHeaders.headers(headers);
            long length = WsgiHeaders.contentLength(list);
            if (length >= 0 && length != count) {
                return false;
            }
            start(status, headers);
            finished = true;
            try {
                response.file(path, offset, count);
            } catch (IOException e) {
                Log.error("WSGI app " + label + ": cannot send its file: " + e.getMessage());
                response.abort();
            }
            return true;
        }
    }

    /** The app has returned and its iterable is closed; {@code error} is what it raised, or null. */
    synchronized void completed(PythonException error) {
        if (error != null && !disconnected) {
            Log.error("Exception in WSGI application\n" + error.pythonTraceback().stripTrailing());
        }
        if (finished || disconnected) {
            return;
        }
        finished = true;
        if (started) {
            response.abort();
        } else {
            response.fail();
        }
    }

    // ---- the connection's side (event loop)

    @Override
    public synchronized void body(byte[] chunk, boolean last) {
        if (bodyComplete) {
            return; // the end of a bodyless request, known when the cycle opened
        }
        bodyComplete = last;
        if (chunk.length > 0) {
            body.add(chunk);
            queuedBytes += chunk.length;
        }
        if (queuedBytes > HIGH_WATER && !paused && !last) {
            paused = true;
            response.pauseReading(true);
        }
        notifyAll();
    }

    @Override
    public synchronized void disconnected() {
        disconnected = true;
        notifyAll();
    }

    @Override
    public synchronized void writable() {
        notifyAll();
    }

    /**
     * The graceful shutdown timed out. A thread running Python cannot be stopped from outside, so
     * the response ends now (a 500, or the connection closes) and the app's next read or write
     * finds the client gone.
     */
    @Override
    public synchronized void cancel() {
        disconnected = true;
        notifyAll();
        if (!finished) {
            finished = true;
            if (started) {
                response.abort();
            } else {
                response.fail();
            }
        }
    }
}
