package dev.apx.server.http2;

import dev.apx.log.Log;
import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.api.RequestHead;
import dev.apx.server.shared.Limits;
import dev.apx.server.shared.RequestTargets;
import dev.apx.server.shared.ServerState;
import dev.apx.server.tls.TlsSession;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.concurrent.ScheduledFuture;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/2 stream as one apx request: its HEADERS become a {@link RequestHead} (pseudo-headers
 * mapped as the ASGI spec says: {@code :authority} becomes {@code host}, first), handed to the same
 * {@link dev.apx.server.api.HttpApp} the HTTP/1.1 path uses; DATA becomes {@link Exchange#body}, request
 * trailers end the body and are otherwise ignored. A RST_STREAM from the client closes the stream:
 * the app hears {@code http.disconnect} and its task is cancelled. The per-request limits of
 * {@link Limits} apply per stream, and a stream that cannot write for {@code --timeout-write} (the
 * client keeps its window at zero) is reset. While the app does not read, DATA is held here and its
 * bytes are not handed back to the client's window, so the client's sending waits for the app.
 *
 * <p>Threads: the connection's event loop, except {@link #writable} and {@link #stalled};
 * {@link StreamResponse} posts its writes to the loop.
 */
final class StreamRequest {
    private static final long POLL_MILLIS = 20;
    /** A pathsend's chunks (16 KiB) written between flushes. */
    private static final int FLUSH_EVERY_CHUNKS = 4;

    private final ConnectionHandler connection;
    private final Http2Stream stream;
    private final ServerState state;
    private final Http2RemoteFlowController flow;
    private final StreamObserver observer; // with --metrics only
    private Exchange exchange;
    private StreamResponse response;
    private boolean bodyDone;
    private boolean responseDone;
    private boolean endWritten; // the app's response has written its END_STREAM
    private boolean localEnded; // any END_STREAM of ours: nothing more goes out on this stream
    private volatile boolean closed;
    private long bodyBytes;
    private boolean paused; // the app reads no more for now: DATA waits in held
    private ArrayDeque<Object[]> held; // {byte[] chunk, Boolean last}
    private int heldBytes; // flow-controlled bytes of held, padding included
    private FileFrames file; // a pathsend being written
    private Runnable afterFile; // the trailers that follow it
    private ScheduledFuture<?> stallTimer; // the poll while the app waits for the window

    StreamRequest(ConnectionHandler connection, Http2Stream stream) {
        this.connection = connection;
        this.stream = stream;
        this.state = connection.state();
        this.flow = connection.connection().remote().flowController();
        this.observer = state.observer() != HttpObserver.NONE ? new StreamObserver(state.observer()) : null;
    }

    private ChannelHandlerContext ctx() {
        return connection.context();
    }

    Channel channel() {
        return connection.context().channel();
    }

    // ---- the request

    void begin(Http2Headers frame, boolean endStream) {
        CharSequence method = frame.method();
        CharSequence path = frame.path();
        if (observer != null) {
            observer.request(method);
        }
        if (method == null || path == null) { // CONNECT (no :path): not served
            reset(Http2Error.PROTOCOL_ERROR);
            return;
        }
        String target = RequestTargets.problem(method.toString(), path.toString(), false);
        if (target != null) { // as HTTP/1.1 refuses it in the request line
            refuse(400, target);
            return;
        }
        String problem = RequestHeaders.problem(frame, state.config().limits());
        if (problem != null) {
            refuse(431, problem);
            return;
        }
        Limits limits = state.config().limits();
        if (limits.maxBody() > 0 && RequestHeaders.contentLength(frame) > limits.maxBody()) {
            refuse(413, "body longer than " + limits.maxBody() + " bytes");
            return;
        }
        int limit = state.config().limitConcurrency();
        if (limit > 0 && state.inFlight().get() >= limit) {
            Log.warning("Exceeded concurrency limit.");
            refuse(503, null);
            return;
        }
        Channel channel = channel();
        InetSocketAddress client = channel.remoteAddress() instanceof InetSocketAddress a ? a : null;
        InetSocketAddress server = channel.localAddress() instanceof InetSocketAddress a ? a : null;
        RequestHead head = new RequestHead(method.toString(), path.toString(), "HTTP/2", RequestHeaders.asgi(frame), client, server, null,
                endStream, TlsSession.of(channel));
        state.inFlight().incrementAndGet();
        state.countRequest();
        bodyDone = endStream;
        response = new StreamResponse(this, state.config(), head.method(), head.uri());
        connection.opened(this);
        exchange = state.app().open(head, response);
        if (endStream) {
            exchange.body(new byte[0], true);
        }
    }

    /** The request could not be handed to the app: this stream ends, the others carry on. */
    void failed(RuntimeException e) {
        Log.warning("HTTP/2 stream failed: " + e);
        if (response != null && exchange == null && !responseDone) { // counted in flight, never handed to the app
            responseDone = true;
            state.inFlight().decrementAndGet();
            connection.closed(this);
        }
        reset(Http2Error.INTERNAL_ERROR);
    }

    /** A DATA frame; returns the bytes the client's window gets back now (none while the app is paused). */
    int data(ByteBuf data, int padding, boolean last) {
        int flowBytes = data.readableBytes() + padding;
        if (observer != null) {
            observer.requestData(data.readableBytes());
        }
        if (exchange == null || bodyDone) {
            return flowBytes;
        }
        bodyBytes += data.readableBytes();
        Limits limits = state.config().limits();
        if (limits.maxBody() > 0 && bodyBytes > limits.maxBody()) {
            refuse(413, "body longer than " + limits.maxBody() + " bytes");
            return flowBytes;
        }
        bodyDone = last;
        byte[] chunk = ByteBufUtil.getBytes(data);
        if (paused) {
            hold(chunk, last, flowBytes);
            return 0;
        }
        exchange.body(chunk, last);
        return flowBytes;
    }

    /** Request trailers: the end of the body, their fields unused. */
    void trailers() {
        if (exchange == null || bodyDone) {
            return;
        }
        bodyDone = true;
        if (paused) {
            hold(new byte[0], true, 0);
        } else {
            exchange.body(new byte[0], true);
        }
    }

    private void hold(byte[] chunk, boolean last, int flowBytes) {
        if (held == null) {
            held = new ArrayDeque<>();
        }
        held.add(new Object[]{chunk, last});
        heldBytes += flowBytes;
    }

    /** Flow control of the request body, from the app side (posted to the event loop). */
    void pauseReading(boolean pause) {
        paused = pause;
        if (pause || held == null || closed) {
            return;
        }
        while (!held.isEmpty() && !paused) {
            Object[] chunk = held.poll();
            exchange.body((byte[]) chunk[0], (Boolean) chunk[1]);
        }
        if (held.isEmpty() && heldBytes > 0) {
            int bytes = heldBytes;
            heldBytes = 0;
            connection.consumed(stream, bytes);
        }
    }

    void readComplete() {
        if (exchange != null && !responseDone) {
            exchange.readComplete();
        }
    }

    /** The server's own answer on this stream (400, 431, 413, 503), then the stream ends; the app hears a disconnect if it had the request. */
    private void refuse(int status, String reason) {
        if (reason != null) {
            Log.warning("Invalid HTTP request received: " + reason);
        }
        bodyDone = true;
        if (response != null && !response.preempt()) {
            reset(Http2Error.CANCEL);
            return;
        }
        byte[] text = (status == 503 ? "Service Unavailable" : status == 413 ? "Request Entity Too Large"
                : status == 400 ? "Invalid HTTP request received." : "Request Header Fields Too Large").getBytes(StandardCharsets.US_ASCII);
        Http2Headers headers = new DefaultHttp2Headers().status(Integer.toString(status))
                .add("content-type", "text/plain; charset=utf-8").add("content-length", Integer.toString(text.length));
        if (observer != null) {
            observer.refusing();
        }
        writeHeaders(headers, false);
        ChannelFuture written = writeData(Unpooled.wrappedBuffer(text), true);
        localEnded = true;
        written.addListener(f -> { // the client may still be sending: RST_STREAM ends that
            resetIfOpen();
            disconnect();
        });
    }

    // ---- the response (event loop; StreamResponse posts here)

    void sendHead(Http2Headers headers, boolean end) {
        if (localEnded || closed) {
            return;
        }
        boolean clientDone = clientDone();
        ChannelFuture written = writeHeaders(headers, end);
        if (end) {
            ended(written, clientDone);
        }
    }

    void sendData(ByteBuf data, boolean end) {
        if (localEnded || closed) {
            data.release();
            return;
        }
        boolean clientDone = clientDone();
        ChannelFuture written = writeData(data, end);
        if (end) {
            ended(written, clientDone);
        }
    }

    private boolean clientDone() {
        return stream.state() == Http2Stream.State.HALF_CLOSED_REMOTE;
    }

    /** The body ends without a frame of its own (trailers follow): what was written goes out. */
    void flush() {
        connection.flushSoon();
    }

    void sendTrailers(Http2Headers trailers) {
        if (file != null) {
            afterFile = () -> sendTrailers(trailers);
            return;
        }
        sendHead(trailers, true);
    }

    void sendFile(FileFrames frames) {
        if (localEnded || closed) {
            frames.close();
            return;
        }
        file = frames;
        pumpFile();
    }

    /** Writes file chunks while the stream's and connection's windows have room; resumed by {@link #writabilityChanged}. */
    private void pumpFile() {
        FileFrames frames = file;
        try {
            for (int chunks = 1; !closed && !frames.done() && channel().isWritable() && flow.isWritable(stream); chunks++) {
                ByteBuf chunk = frames.next(channel().alloc());
                boolean end = frames.done() && frames.endsStream();
                boolean clientDone = clientDone();
                ChannelFuture written = writeData(chunk, end);
                if (end) {
                    ended(written, clientDone);
                }
                if (chunks % FLUSH_EVERY_CHUNKS == 0) {
                    // into the socket, so that its writability stops the loop: a client with wide windows
                    // would otherwise have the whole file read into the flow controller's queue first
                    connection.flush(ctx());
                }
            }
        } catch (IOException e) {
            Log.warning("Reading the file for " + describe() + " failed: " + e);
            frames.close();
            file = null;
            reset(Http2Error.INTERNAL_ERROR);
            return;
        }
        connection.flushSoon();
        if (frames.done() || closed) {
            frames.close();
            file = null;
            Runnable then = afterFile;
            afterFile = null;
            if (then != null && !closed) {
                then.run();
            }
        }
    }

    private ChannelFuture writeHeaders(Http2Headers headers, boolean end) {
        if (observer != null) {
            observer.responseHeaders(headers, end);
        }
        localEnded |= end;
        ChannelHandlerContext ctx = ctx();
        ChannelFuture written = connection.encoder().writeHeaders(ctx, stream.id(), headers, 0, end, ctx.newPromise());
        connection.flushSoon();
        return written;
    }

    private ChannelFuture writeData(ByteBuf data, boolean end) {
        if (observer != null) {
            observer.responseData(data.readableBytes(), end);
        }
        localEnded |= end;
        ChannelHandlerContext ctx = ctx();
        ChannelFuture written = connection.encoder().writeData(ctx, stream.id(), data, 0, end, ctx.newPromise());
        connection.flushSoon();
        return written;
    }

    /**
     * The response's END_STREAM is written. When the client had ended its side, Netty closes the
     * stream once the frame is out (or failed), and {@link #streamClosed} finishes the response: no
     * listener of ours on the write. Otherwise the stream stays half open and the write's end decides.
     */
    private void ended(ChannelFuture written, boolean clientDone) {
        endWritten = true;
        if (!clientDone) {
            written.addListener(f -> responseWritten(f.isSuccess()));
        }
    }

    /** The app's response is fully written (or failed). */
    private void responseWritten(boolean success) {
        if (responseDone || exchange == null) {
            return;
        }
        responseDone = true;
        state.inFlight().decrementAndGet();
        connection.closed(this);
        cancelStallTimer();
        if (!bodyDone || !success) {
            resetIfOpen(); // the request body is not read to its end: RST_STREAM (NO_ERROR would also do)
        }
    }

    /** The app gives up on the response: RST_STREAM, this stream only. */
    void abort() {
        reset(Http2Error.CANCEL);
    }

    private void reset(Http2Error error) {
        if (closed) {
            return;
        }
        localEnded = true;
        connection.resetStream(ctx(), stream.id(), error.code(), ctx().newPromise());
        connection.flush(ctx()); // at once: the client stops sending to a stream that will not read it
    }

    private void resetIfOpen() {
        if (!closed && stream.state() != Http2Stream.State.CLOSED) {
            reset(Http2Error.CANCEL);
        }
    }

    /** Netty closed the stream: both ends done, a reset either way, or the connection gone. */
    void streamClosed() {
        closed = true;
        cancelStallTimer();
        held = null;
        if (file != null) {
            file.close();
            file = null;
        }
        if (endWritten) {
            responseWritten(true);
        } else {
            disconnect();
        }
    }

    private void disconnect() {
        if (exchange != null && !responseDone) {
            responseDone = true;
            state.inFlight().decrementAndGet();
            connection.closed(this);
            cancelStallTimer();
            exchange.disconnected();
        }
    }

    /** Graceful shutdown timed out: cancel the app (the stream resets when its task ends without a response). */
    void cancel() {
        if (exchange != null && !responseDone) {
            Log.warning("Cancelling " + describe() + ": still running at the graceful shutdown timeout");
            exchange.cancel();
        }
    }

    private String describe() {
        return response.describe();
    }

    String client() {
        return channel().remoteAddress() instanceof InetSocketAddress address
                ? address.getAddress().getHostAddress() + ":" + address.getPort() : "unix";
    }

    // ---- writability: the client's windows and the socket

    /** The stream's or connection's window, or the socket, changed: a waiting app or file goes on. */
    void writabilityChanged() {
        if (closed) {
            return;
        }
        if (file != null) {
            pumpFile();
        }
        if (stallTimer != null && writable()) {
            cancelStallTimer();
            if (exchange != null && !responseDone) {
                exchange.writable();
            }
        }
    }

    /**
     * Whether the app may write more: nothing of its own is still on the way to the loop beyond a
     * chunk, the socket has room, and the client's window for this stream and the connection is
     * open. Any thread (a racy read of the window is corrected by the event-loop poll in {@link #stalled}).
     */
    boolean writable() {
        if (closed) {
            return true; // the disconnect path takes over
        }
        if (!response.belowHighWater() || !channel().isWritable()) {
            return false;
        }
        try {
            return flow.isWritable(stream);
        } catch (RuntimeException racing) {
            return true;
        }
    }

    /** Writes the app made off the loop have arrived: an app waiting on them goes on. */
    void queuedWritesArrived() {
        if (stallTimer != null) {
            writabilityChanged();
        }
    }

    /**
     * The app's send() waits (from StreamResponse, any thread): until {@link #writable}, looked at
     * every {@link #POLL_MILLIS} ms on the event loop, wakes it; a stream still shut after
     * --timeout-write is reset (the client keeps its window at zero).
     */
    void stalled() {
        if (closed) {
            return; // the disconnect path has the app (and a request that failed to open never gets an exchange)
        }
        if (!ctx().executor().inEventLoop() || (exchange == null && response != null)) {
            // the latter: the app's first step ran inside HttpApp.open, before begin() had its exchange
            ctx().executor().execute(this::stalled);
            return;
        }
        if (stallTimer != null || exchange == null || responseDone) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(state.config().limits().writeTimeoutSeconds());
        stallTimer = ctx().executor().scheduleAtFixedRate(() -> {
            if (responseDone) {
                cancelStallTimer();
            } else if (writable()) {
                cancelStallTimer();
                exchange.writable();
            } else if (System.nanoTime() > deadline) {
                cancelStallTimer();
                Log.warning("Client took nothing of a waiting HTTP/2 response for "
                        + state.config().limits().writeTimeoutSeconds() + " s, resetting the stream");
                reset(Http2Error.CANCEL);
            }
        }, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void cancelStallTimer() {
        if (stallTimer != null) {
            stallTimer.cancel(false);
            stallTimer = null;
        }
    }
}
