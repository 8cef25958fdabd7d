package dev.apx.server.http1;

import dev.apx.log.Log;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.api.Response;
import dev.apx.server.shared.DefaultHeaders;
import dev.apx.server.shared.ErrorResponses;
import dev.apx.server.shared.ExtraHeaders;
import dev.apx.server.shared.OffHeap;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.shared.ServerState;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.ReadOnlyHttpHeaders;
import io.netty.util.AsciiString;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Response} written to a Netty channel. Framing follows Uvicorn: the app's
 * {@code content-length} when given, else chunked on HTTP/1.1 and close-delimited on HTTP/1.0;
 * nothing after the headers for HEAD, 1xx, 204 and 304. An HTTP/1.0 request with
 * {@code Connection: keep-alive} and a response of known length keeps the connection and says so
 * (Uvicorn closes every HTTP/1.0 connection).
 *
 * <p>Threads: called by the app side (any thread, one at a time); Netty queues writes made off the
 * event loop in order. The end of the response is reported to {@link ExchangeHandler} on the loop.
 */
final class NettyResponse implements Response {
    private final Channel channel;
    private final HttpRequest request;
    private final ExchangeHandler handler;
    private final ServerState state;
    private final long startedNanos; // when the request's head was read, with --metrics (else unused)
    private final boolean head;
    private volatile String logClient; // the access log's client when a proxy names it, else null
    private boolean keepAlive;
    private volatile boolean lastOnConnection; // the server is shutting down: this response ends its connection
    private volatile boolean awaitingContinue; // Expect: 100-continue, and no 100 sent yet
    private boolean noBody;
    private boolean trailersPending;
    // What the app has sent and Netty has not been given yet (guarded by this): the head off the
    // event loop, to go out with the first body write, and the body chunks sent in a row, copied
    // into one buffer that one drain task writes and flushes (see appendBody).
    private Object unsentHead;
    private ByteBuf pending;
    private boolean drainScheduled;
    private int status;
    private long requestBytes; // event loop
    private long responseBytes; // the app's side; read on the event loop once the end is handed over
    /** NEW, then STARTED by the app or PREEMPTED by the server's own error response (whichever is first). */
    private final AtomicInteger phase = new AtomicInteger(NEW);
    private static final int NEW = 0;
    private static final int STARTED = 1;
    private static final int PREEMPTED = 2;
    /** Chunks sent in a row are gathered up to this size before Netty takes them (its default high water mark is 64 KiB). */
    static final int HAND_OVER_BYTES = 64 * 1024;
    private static final int FIRST_PENDING_BYTES = 4096;
    private static final DefaultHttpHeadersFactory MUTABLE_HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);

    NettyResponse(Channel channel, HttpRequest request, boolean keepAlive, ExchangeHandler handler, ServerState state,
                  long startedNanos) {
        this.channel = channel;
        this.request = request;
        this.keepAlive = keepAlive;
        this.handler = handler;
        this.state = state;
        this.startedNanos = startedNanos;
        this.head = request.method().equals(HttpMethod.HEAD);
        this.awaitingContinue = HttpUtil.is100ContinueExpected(request);
    }

    @Override
    public void start(int status, List<String[]> headers, boolean trailers) {
        start(status, null, headers, trailers);
    }

    @Override
    public void start(int status, String reason, List<String[]> headers, boolean trailers) {
        if (!phase.compareAndSet(NEW, STARTED)) {
            return;
        }
        this.status = status;
        ServerConfig config = state.config();
        AsciiString[] fields = new AsciiString[DefaultHeaders.slots(config) + 2 * headers.size() + 4];
        int n = DefaultHeaders.put(fields, 0, config);
        boolean connection = ExtraHeaders.hasConnection();
        boolean length = false;
        boolean encoding = false;
        for (String[] header : headers) {
            String name = header[0];
            if (name.equalsIgnoreCase("content-length")) {
                length = true;
            } else if (name.equalsIgnoreCase("transfer-encoding")) {
                encoding = true;
            } else if (name.equalsIgnoreCase("connection")) {
                connection = true;
                keepAlive &= !header[1].equalsIgnoreCase("close");
            }
            fields[n++] = ascii(name);
            fields[n++] = ascii(header[1]);
        }
        noBody = head || status < 200 || status == 204 || status == 304;
        boolean http11 = request.protocolVersion().equals(HttpVersion.HTTP_1_1);
        boolean unframed = !length && !encoding && !noBody;
        if ((unframed && !http11) || lastOnConnection || awaitingContinue) {
            // the close ends the body, or the server closes after this response, or the client,
            // never told to continue, may or may not send the body it announced
            keepAlive = false;
        }
        trailersPending = trailers && !noBody;
        if (!connection) { // before transfer-encoding, in Uvicorn's order
            if (!keepAlive) {
                fields[n++] = HttpHeaderNames.CONNECTION;
                fields[n++] = HttpHeaderValues.CLOSE;
            } else if (!http11) {
                fields[n++] = HttpHeaderNames.CONNECTION;
                fields[n++] = HttpHeaderValues.KEEP_ALIVE; // an HTTP/1.0 client closes unless told otherwise
            }
        }
        if (unframed && http11) {
            fields[n++] = HttpHeaderNames.TRANSFER_ENCODING;
            fields[n++] = HttpHeaderValues.CHUNKED;
        }
        // Array-backed headers, unvalidated (Messages.headers checked the app's): no hash table to fill
        // for a response that is only encoded, and AsciiStrings the encoder copies whole. Netty's encoder
        // edits the framing headers of a response without a body (1xx, 204, 205), so those get a mutable copy.
        HttpHeaders out = new ReadOnlyHttpHeaders(false, n == fields.length ? fields : Arrays.copyOf(fields, n));
        if (noBody || status == 205) {
            out = MUTABLE_HEADERS.newHeaders().add(out);
        }
        DefaultHttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1,
                reason == null ? HttpResponseStatus.valueOf(status) : HttpResponseStatus.valueOf(status, reason), out);
        if (state.config().accessLog()) {
            Log.access(logClient != null ? logClient : clientOf(channel), request.method().name(), request.uri(),
                    request.protocolVersion().text().substring(5), status);
        }
        if (channel.eventLoop().inEventLoop()) {
            channel.write(response); // flushed with the body
        } else {
            synchronized (this) {
                unsentHead = response;
            }
        }
    }

    /**
     * Body chunks the app sends in a row go to Netty as one buffer: 64 sends of 1 KiB in one step
     * are one write and one flush on the event loop, not 64 messages through the pipeline (the
     * encoder's chunk framing, the idle handler's listener, an outbound-buffer entry each). The
     * first chunk after a drain schedules the next one, so nothing waits for the app's next await:
     * a chunk goes out as soon as the event loop runs. Past {@link #HAND_OVER_BYTES} the buffer is
     * written at once instead, through Netty's task, which counts its bytes, so {@link #isWritable}
     * still holds back an app that sends faster than the client reads.
     */
    private void appendBody(byte[] data) {
        Unsent full = null;
        boolean schedule;
        synchronized (this) {
            if (pending == null) {
                pending = channel.alloc().directBuffer(Math.max(data.length, FIRST_PENDING_BYTES));
            }
            pending.writeBytes(data);
            if (pending.readableBytes() >= HAND_OVER_BYTES) {
                full = takeUnsent();
            }
            // a drain queued before the hand-over's write would flush before it: one more goes behind it
            schedule = !drainScheduled || full != null;
            drainScheduled = true;
        }
        if (full != null) {
            full.write(channel);
        }
        if (schedule) {
            channel.eventLoop().execute(this::drain);
        }
    }

    /** A flush for what was sent so far, also with no bytes (an empty chunk with more to come: the head goes out). */
    private void drainSoon() {
        boolean schedule;
        synchronized (this) {
            schedule = !drainScheduled;
            drainScheduled = true;
        }
        if (schedule) {
            channel.eventLoop().execute(this::drain);
        }
    }

    /** The drain task (event loop): writes the head and chunks not handed over yet, and flushes. */
    private void drain() {
        Unsent unsent;
        synchronized (this) {
            unsent = takeUnsent();
            drainScheduled = false;
        }
        unsent.write(channel);
        channel.flush();
    }

    /** The head and chunks Netty has not been given, taken from this response (with its lock held). */
    private Unsent takeUnsent() {
        Unsent unsent = new Unsent(unsentHead, pending);
        unsentHead = null;
        pending = null;
        return unsent;
    }

    /** A head and chunks taken together, written in that order (any thread; off the event loop as Netty's tasks). */
    private record Unsent(Object head, ByteBuf chunks) {
        void write(Channel channel) {
            if (head != null) {
                channel.write(head);
            }
            if (chunks != null) {
                channel.write(new DefaultHttpContent(chunks));
            }
        }
    }

    /** Writes the unsent head and chunks before {@code content} (a file region between body and trailers), flushed by a drain. */
    private void writeMiddle(Object content) {
        Unsent unsent;
        synchronized (this) {
            unsent = takeUnsent();
            drainScheduled = true;
        }
        unsent.write(channel);
        if (content != null) {
            channel.write(content);
        }
        channel.eventLoop().execute(this::drain); // behind these writes, whatever drain is queued before them
    }

    /** The end of the response: off the event loop one task for head, chunks, content and end. */
    private ChannelFuture writeEnd(Object content, LastHttpContent last) {
        Unsent unsent;
        synchronized (this) {
            unsent = takeUnsent();
        }
        if (channel.eventLoop().inEventLoop()) {
            return writeEndNow(unsent, content, last, channel.newPromise());
        }
        ChannelPromise done = channel.newPromise();
        channel.eventLoop().execute(() -> writeEndNow(unsent, content, last, done));
        return done;
    }

    private ChannelFuture writeEndNow(Unsent unsent, Object content, LastHttpContent last, ChannelPromise done) {
        unsent.write(channel);
        if (content != null) {
            channel.write(content);
        }
        ChannelFuture written = channel.writeAndFlush(last, done);
        HttpObserver observer = state.observer();
        if (observer != HttpObserver.NONE) { // --metrics: the response is whole in the pipeline, as the request path sees it
            observer.response(request.method().name(), status, System.nanoTime() - startedNanos, requestBytes, responseBytes);
        }
        return written;
    }

    /** A header name or value (ISO-8859-1, one byte per char, as Messages.headers made it) as bytes. */
    private static AsciiString ascii(String text) {
        return new AsciiString(text.getBytes(StandardCharsets.ISO_8859_1), false);
    }

    @Override
    public void logClientAs(String hostAndPort) {
        logClient = hostAndPort;
    }

    private static String clientOf(Channel channel) {
        return channel.remoteAddress() instanceof java.net.InetSocketAddress address
                ? address.getAddress().getHostAddress() + ":" + address.getPort() : "unix";
    }

    @Override
    public void body(byte[] data, boolean more) {
        if (phase.get() == PREEMPTED) {
            return;
        }
        boolean bytes = !noBody && data.length > 0;
        if (bytes) {
            responseBytes += data.length;
        }
        if (more || trailersPending) {
            if (bytes) {
                appendBody(data);
            } else {
                drainSoon();
            }
        } else {
            end(bytes ? new DefaultHttpContent(OffHeap.copy(channel, data)) : null, LastHttpContent.EMPTY_LAST_CONTENT);
        }
    }

    @Override
    public void file(Path path) throws IOException {
        file(path, 0, -1);
    }

    /** {@code count} -1: to the end of the file. */
    @Override
    public void file(Path path, long offset, long count) throws IOException {
        if (phase.get() == PREEMPTED) {
            return;
        }
        Object region = null;
        if (!noBody) {
            FileChannel file = FileChannel.open(path, StandardOpenOption.READ);
            DefaultFileRegion whole = new DefaultFileRegion(file, offset, count < 0 ? file.size() - offset : count);
            responseBytes += whole.count();
            region = whole;
        }
        if (trailersPending) {
            writeMiddle(region);
        } else {
            end(region, LastHttpContent.EMPTY_LAST_CONTENT);
        }
    }

    @Override
    public void trailers(List<String[]> headers) {
        if (phase.get() == PREEMPTED) {
            return;
        }
        LastHttpContent last = new DefaultLastHttpContent();
        for (String[] header : headers) {
            last.trailingHeaders().add(header[0], header[1]);
        }
        end(null, noBody ? LastHttpContent.EMPTY_LAST_CONTENT : last);
    }

    private void end(Object content, LastHttpContent last) {
        boolean reuse = keepAlive;
        writeEnd(content, last).addListener(f -> channel.eventLoop().execute(() -> handler.responseDone(this, reuse && f.isSuccess())));
    }

    @Override
    public boolean bodyIgnored() {
        return noBody;
    }

    /** The server is shutting down (event loop): a head not sent yet says {@code connection: close}, as Uvicorn's. */
    void makeLastOnConnection() {
        lastOnConnection = true;
    }

    /** The request as the log names it: {@code GET /path?query from 127.0.0.1:5000} (the client's bytes made printable by the caller). */
    String describeRequest() {
        return request.method() + " " + request.uri() + " from " + (logClient != null ? logClient : clientOf(channel));
    }

    /** Body bytes read for this request (event loop), for {@code --metrics}. */
    void countRequestBytes(int bytes) {
        requestBytes += bytes;
    }

    /** The server's own answer, after {@link #preempt} (event loop): counted as this request's response. */
    void refuse(HttpResponseStatus refusal) {
        ErrorResponses.sendAndClose(channel, refusal, state, request.method().name(), startedNanos, requestBytes);
    }

    /** The server answers instead of the app (event loop); false when the app's response started first. */
    boolean preempt() {
        return phase.compareAndSet(NEW, PREEMPTED);
    }

    @Override
    public boolean isWritable() {
        return channel.isWritable();
    }

    /**
     * Decided here, on the app's side and before its response can start: the 100 goes out ahead of
     * any write of the response (Netty keeps the order of what one thread hands the loop), and a
     * response started later keeps its connection.
     */
    @Override
    public void bodyWanted() {
        if (!awaitingContinue || phase.get() != NEW) {
            return;
        }
        awaitingContinue = false;
        if (channel.eventLoop().inEventLoop()) {
            handler.continueWanted(this);
        } else {
            channel.eventLoop().execute(() -> handler.continueWanted(this));
        }
    }

    boolean awaitingContinue() {
        return awaitingContinue;
    }

    /** Writes the 100 Continue (event loop). */
    void sendContinue() {
        channel.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
    }

    @Override
    public void pauseReading(boolean paused) {
        channel.eventLoop().execute(() -> handler.pauseReading(paused));
    }

    @Override
    public void fail() {
        keepAlive = false;
        start(500, List.of(new String[]{"content-type", "text/plain; charset=utf-8"},
                new String[]{"content-length", "21"}), false);
        body("Internal Server Error".getBytes(java.nio.charset.StandardCharsets.US_ASCII), false);
    }

    @Override
    public void abort() {
        Unsent unsent;
        synchronized (this) {
            unsent = takeUnsent();
        }
        channel.eventLoop().execute(() -> {
            if (unsent.chunks() != null) { // what the app sent before it failed goes out (a head alone does not)
                unsent.write(channel);
                channel.flush();
            }
            channel.close();
        });
    }
}
