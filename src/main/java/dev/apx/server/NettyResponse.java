package dev.apx.server;

import dev.apx.log.Log;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultFileRegion;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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
    private boolean noBody;
    private boolean trailersPending;
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private final AtomicLong writes = new AtomicLong(); // body writes so far, for flushSoon
    private Object unsentHead; // off the event loop: the head, to go out in one task with the first body write
    private int status;
    private long requestBytes; // event loop
    private long responseBytes; // the app's side; read on the event loop once the end is handed over
    /** NEW, then STARTED by the app or PREEMPTED by the server's own error response (whichever is first). */
    private final AtomicInteger phase = new AtomicInteger(NEW);
    private static final int NEW = 0;
    private static final int STARTED = 1;
    private static final int PREEMPTED = 2;
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
        if ((unframed && !http11) || lastOnConnection) {
            keepAlive = false; // the close ends the body, or the server closes after this response
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
            unsentHead = response;
        }
    }

    /**
     * A write before the end of the body, flushed if asked. Off the event loop this goes through
     * Netty's own task per message, which counts the bytes at once, so {@link #isWritable} holds
     * back an app that sends faster than the client reads.
     */
    private void writeMiddle(Object content, boolean flush) {
        Object head = unsentHead;
        unsentHead = null;
        if (head != null) {
            channel.write(head);
        }
        if (content != null) {
            channel.write(content);
        }
        writes.incrementAndGet(); // after the write is queued: a flush scheduled from here on runs behind it
        if (flush) {
            flushSoon();
        }
    }

    /**
     * One flush for the chunks an app sends in a row: 64 sends in one drive make one writev, not
     * 64. The flush task runs on the event loop after the writes queued before it (on the event
     * loop: after the drive). A write queued behind a pending flush task finds the flag still set
     * and schedules nothing, so the task, once it has flushed, looks for writes counted after it
     * was scheduled and schedules one more flush for them (behind their write tasks).
     */
    private void flushSoon() {
        if (flushScheduled.compareAndSet(false, true)) {
            long upTo = writes.get();
            channel.eventLoop().execute(() -> flushWritesUpTo(upTo));
        }
    }

    private void flushWritesUpTo(long upTo) {
        channel.flush();
        flushScheduled.set(false);
        if (writes.get() != upTo) {
            flushSoon();
        }
    }

    /** The end of the response: off the event loop one task for head, content and end, not three. */
    private ChannelFuture writeEnd(Object content, LastHttpContent last) {
        Object head = unsentHead;
        unsentHead = null;
        if (channel.eventLoop().inEventLoop()) {
            return writeEndNow(head, content, last, channel.newPromise());
        }
        ChannelPromise done = channel.newPromise();
        channel.eventLoop().execute(() -> writeEndNow(head, content, last, done));
        return done;
    }

    private ChannelFuture writeEndNow(Object head, Object content, LastHttpContent last, ChannelPromise done) {
        if (head != null) {
            channel.write(head);
        }
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
        Object content = !noBody && data.length > 0 ? new DefaultHttpContent(OffHeap.copy(channel, data)) : null;
        if (content != null) {
            responseBytes += data.length;
        }
        if (more || trailersPending) {
            writeMiddle(content, true);
        } else {
            end(content, LastHttpContent.EMPTY_LAST_CONTENT);
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
            writeMiddle(region, false);
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
        unsentHead = null;
        channel.eventLoop().execute(channel::close);
    }
}
