package dev.apx.server.http2;

import dev.apx.log.Log;
import dev.apx.server.api.Response;
import dev.apx.server.shared.DefaultHeaders;
import dev.apx.server.shared.OffHeap;
import dev.apx.server.shared.ServerConfig;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.ReadOnlyHttp2Headers;
import io.netty.util.AsciiString;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * A {@link Response} written to one HTTP/2 stream: a HEADERS frame, DATA frames, and the app's
 * trailers as a last HEADERS frame. Connection-specific headers (RFC 9113 8.2.2) are dropped, names
 * lower-cased. Writability is the stream's ({@link StreamRequest#writable}): while the stream's or
 * the connection's flow-control window is closed {@code send()} waits for the client's
 * WINDOW_UPDATE, so a slow reader holds the app back, not memory.
 *
 * <p>Threads: called by the app side (any thread, one at a time). Off the event loop the head waits
 * for the first body write and both go to the loop in one task, as the HTTP/1.1 response does; the
 * bytes on their way there count against {@link #HIGH_WATER}.
 */
final class StreamResponse implements Response {
    /** Hop-by-hop headers HTTP/2 forbids; an app written for HTTP/1.1 may still send them. */
    private static final Set<String> CONNECTION_SPECIFIC = Set.of("connection", "keep-alive", "proxy-connection",
            "transfer-encoding", "upgrade");
    /** Body bytes posted to the loop and not yet handed to the codec, past which send() waits (as a stream channel's 64 KiB mark did). */
    private static final long HIGH_WATER = 64 * 1024;

    private final StreamRequest request;
    private final EventLoop loop;
    private final ServerConfig config;
    private final String method;
    private final String path;
    private final boolean head;
    private volatile String logClient;
    private boolean noBody;
    private boolean trailersPending;
    private Http2Headers unsentHead; // off the loop: the head, to go out in one task with the first body write
    // field updaters rather than two atomic objects per stream
    private volatile int started; // 1 once the app's start() or the server's preempt() came first
    private volatile long onTheWay;
    private static final AtomicIntegerFieldUpdater<StreamResponse> STARTED =
            AtomicIntegerFieldUpdater.newUpdater(StreamResponse.class, "started");
    private static final AtomicLongFieldUpdater<StreamResponse> ON_THE_WAY =
            AtomicLongFieldUpdater.newUpdater(StreamResponse.class, "onTheWay");

    StreamResponse(StreamRequest request, ServerConfig config, String method, String path) {
        this.request = request;
        this.loop = request.channel().eventLoop();
        this.config = config;
        this.method = method;
        this.path = path;
        this.head = method.equals("HEAD");
    }

    @Override
    public void start(int status, List<String[]> headers, boolean trailers) {
        if (!STARTED.compareAndSet(this, 0, 1)) {
            return;
        }
        Http2Headers out = head(status, headers);
        noBody = head || status == 204 || status == 304;
        trailersPending = trailers && !noBody;
        if (config.accessLog()) {
            Log.access(logClient != null ? logClient : request.client(), method, path, "2", status);
        }
        if (noBody) {
            onLoop(() -> request.sendHead(out, true));
        } else if (loop.inEventLoop()) {
            request.sendHead(out, false); // flushed with the body
        } else {
            unsentHead = out;
        }
    }

    /**
     * The response's HEADERS as Netty's array-backed read-only headers: no hashed entries to build,
     * and the HPACK encoder reads AsciiStrings fastest. Names are validated (lower case, no pseudo-header).
     */
    private Http2Headers head(int status, List<String[]> headers) {
        AsciiString[] fields = new AsciiString[DefaultHeaders.slots(config) + 2 * headers.size()];
        int n = DefaultHeaders.put(fields, 0, config);
        for (String[] header : headers) {
            String name = header[0].toLowerCase(Locale.ROOT);
            if (CONNECTION_SPECIFIC.contains(name) || (name.equals("te") && !header[1].equalsIgnoreCase("trailers"))) {
                continue;
            }
            fields[n++] = new AsciiString(name);
            fields[n++] = new AsciiString(header[1]); // ISO-8859-1: one byte per char
        }
        AsciiString code = status >= 100 && status < 1000 ? HttpResponseStatus.valueOf(status).codeAsText() : AsciiString.of(Integer.toString(status));
        return ReadOnlyHttp2Headers.serverHeaders(true, code, n == fields.length ? fields : Arrays.copyOf(fields, n));
    }

    @Override
    public void body(byte[] data, boolean more) {
        if (noBody) {
            return; // the head ended the stream
        }
        boolean end = !more && !trailersPending;
        Http2Headers head = takeHead();
        if (data.length == 0 && !end) {
            if (head != null || !more) { // the body is over, the trailers follow: what was written goes out
                onLoop(() -> {
                    if (head != null) {
                        request.sendHead(head, false);
                    }
                    request.flush();
                });
            }
            return;
        }
        ByteBuf content = OffHeap.copy(request.channel(), data);
        if (loop.inEventLoop()) {
            request.sendData(content, end);
            return;
        }
        int size = content.readableBytes();
        ON_THE_WAY.addAndGet(this, size);
        loop.execute(() -> {
            if (head != null) {
                request.sendHead(head, false);
            }
            request.sendData(content, end);
            ON_THE_WAY.addAndGet(this, -size);
            request.queuedWritesArrived();
        });
    }

    @Override
    public void file(Path path) throws IOException {
        if (noBody) {
            return;
        }
        Http2Headers head = takeHead();
        FileFrames frames = FileFrames.open(path, !trailersPending);
        onLoop(() -> {
            if (head != null) {
                request.sendHead(head, false);
            }
            request.sendFile(frames);
        });
    }

    @Override
    public void trailers(List<String[]> headers) {
        if (noBody) {
            return;
        }
        Http2Headers head = takeHead();
        Http2Headers trailers = new DefaultHttp2Headers();
        for (String[] header : headers) {
            trailers.add(header[0].toLowerCase(Locale.ROOT), header[1]);
        }
        onLoop(() -> {
            if (head != null) {
                request.sendHead(head, false);
            }
            request.sendTrailers(trailers);
        });
    }

    private Http2Headers takeHead() {
        Http2Headers head = unsentHead;
        unsentHead = null;
        return head;
    }

    private void onLoop(Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
        } else {
            loop.execute(task);
        }
    }

    /** The request as the log names it: {@code GET /path from 127.0.0.1:5000}. */
    String describe() {
        return method + " " + path + " from " + (logClient != null ? logClient : request.client());
    }

    boolean belowHighWater() {
        return onTheWay < HIGH_WATER;
    }

    @Override
    public void logClientAs(String hostAndPort) {
        logClient = hostAndPort;
    }

    @Override
    public boolean bodyIgnored() {
        return noBody;
    }

    @Override
    public boolean isWritable() {
        boolean writable = request.writable();
        if (!writable) {
            request.stalled(); // the app's send() waits: the stream's write timeout starts
        }
        return writable;
    }

    @Override
    public void pauseReading(boolean paused) {
        onLoop(() -> request.pauseReading(paused));
    }

    /** The server answers instead of the app (its own error response); false when the app's response started first. */
    boolean preempt() {
        return STARTED.compareAndSet(this, 0, 1);
    }

    @Override
    public void fail() {
        start(500, List.of(new String[]{"content-type", "text/plain; charset=utf-8"},
                new String[]{"content-length", "21"}), false);
        body("Internal Server Error".getBytes(StandardCharsets.US_ASCII), false);
    }

    @Override
    public void abort() {
        unsentHead = null;
        onLoop(request::abort);
    }
}
