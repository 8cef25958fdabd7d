package dev.apx.server.http2;

import dev.apx.log.Log;
import dev.apx.server.Exchange;
import dev.apx.server.Limits;
import dev.apx.server.RequestHead;
import dev.apx.server.ServerState;
import dev.apx.server.tls.TlsSession;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/2 stream as one apx request: its HEADERS frame becomes a {@link RequestHead} (pseudo-
 * headers mapped as the ASGI spec says: {@code :authority} becomes {@code host}, first), handed to
 * the same {@link dev.apx.server.HttpApp} the HTTP/1.1 path uses; DATA frames become
 * {@link Exchange#body}, request trailers end the body and are otherwise ignored. A RST_STREAM from
 * the client closes this stream channel only: the app hears {@code http.disconnect} and its task is
 * cancelled. The per-request limits of {@link Limits} apply per stream, and a stream that cannot
 * write for {@code --timeout-write} (the client keeps its window at zero) is reset.
 *
 * <p>Threads: the stream channel's event loop; {@link StreamResponse} posts back to it.
 */
final class StreamHandler extends ChannelInboundHandlerAdapter {
    private final ServerState state;
    private final Http2Connection connection;
    private ChannelHandlerContext ctx;
    private Exchange exchange;
    private StreamResponse response;
    private boolean bodyDone;
    private boolean responseDone;
    private long bodyBytes;
    private ScheduledFuture<?> stallTimer; // the poll while the app waits for the window
    private static final long POLL_MILLIS = 20;
    private Http2Stream http2Stream; // the codec's view of this stream: its flow-control window
    private Http2RemoteFlowController flow;
    private String description; // "GET /path from 127.0.0.1:5000", for the log

    StreamHandler(ServerState state, Http2Connection connection) {
        this.state = state;
        this.connection = connection;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        ctx = context;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) {
        if (exchange != null && !responseDone) {
            exchange.readComplete();
        }
        context.fireChannelReadComplete();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        try {
            if (msg instanceof Http2HeadersFrame headers) {
                if (exchange == null && response == null) {
                    begin(headers.headers(), headers.isEndStream());
                } else if (headers.isEndStream()) { // request trailers: the end of the body, their fields unused
                    body(new byte[0], true);
                }
            } else if (msg instanceof Http2DataFrame data) {
                bodyBytes += data.content().readableBytes();
                Limits limits = state.config().limits();
                if (limits.maxBody() > 0 && bodyBytes > limits.maxBody()) {
                    refuse(413, "body longer than " + limits.maxBody() + " bytes");
                    return;
                }
                body(ByteBufUtil.getBytes(data.content()), data.isEndStream());
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void begin(Http2Headers frame, boolean endStream) {
        CharSequence method = frame.method();
        CharSequence path = frame.path();
        if (method == null || path == null) { // CONNECT (no :path): not served
            reset(Http2Error.PROTOCOL_ERROR);
            return;
        }
        String problem = checkHeaders(frame);
        List<String[]> headers = headers(frame);
        if (problem != null) {
            refuse(431, problem);
            return;
        }
        Limits limits = state.config().limits();
        String length = value(frame, "content-length");
        if (limits.maxBody() > 0 && length != null && parseLength(length) > limits.maxBody()) {
            refuse(413, "body longer than " + limits.maxBody() + " bytes");
            return;
        }
        int limit = state.config().limitConcurrency();
        if (limit > 0 && state.inFlight().get() >= limit) {
            Log.warning("Exceeded concurrency limit.");
            refuse(503, null);
            return;
        }
        Http2StreamChannel channel = (Http2StreamChannel) ctx.channel();
        Http2FrameCodec codec = channel.parent().pipeline().get(Http2FrameCodec.class);
        if (codec != null) {
            flow = codec.connection().remote().flowController();
            http2Stream = codec.connection().stream(channel.stream().id());
        }
        InetSocketAddress client = channel.parent().remoteAddress() instanceof InetSocketAddress a ? a : null;
        InetSocketAddress server = channel.parent().localAddress() instanceof InetSocketAddress a ? a : null;
        RequestHead head = new RequestHead(method.toString(), path.toString(), "HTTP/2", headers, client, server, null,
                endStream, TlsSession.of(channel));
        state.inFlight().incrementAndGet();
        state.countRequest();
        description = head.method() + " " + head.uri() + " from " + client();
        bodyDone = endStream;
        response = new StreamResponse(channel, this, state.config(), head.method(), head.uri());
        connection.opened(this);
        exchange = state.app().open(head, response);
        if (endStream) {
            exchange.body(new byte[0], true);
        }
    }

    /** The ASGI headers: {@code host} from {@code :authority} first (replacing any host field), then the rest in order. */
    private static List<String[]> headers(Http2Headers frame) {
        List<String[]> headers = new ArrayList<>(frame.size());
        CharSequence authority = frame.authority();
        if (authority != null) {
            headers.add(new String[]{"host", authority.toString()});
        }
        for (Map.Entry<CharSequence, CharSequence> header : frame) {
            String name = header.getKey().toString();
            if (name.startsWith(":") || (authority != null && name.equals("host"))) {
                continue;
            }
            headers.add(new String[]{name, latin1(header.getValue())});
        }
        return headers;
    }

    /** HPACK carries octets; Netty's AsciiString keeps them one char per byte, as ISO-8859-1 (the RequestHead's form). */
    private static String latin1(CharSequence value) {
        return value.toString();
    }

    private String checkHeaders(Http2Headers frame) {
        Limits limits = state.config().limits();
        if (frame.size() > limits.requestFields()) {
            return "more than " + limits.requestFields() + " header fields";
        }
        for (Map.Entry<CharSequence, CharSequence> header : frame) {
            if (header.getKey().length() + 2 + header.getValue().length() > limits.requestFieldSize()) {
                return "header field " + header.getKey() + " is longer than " + limits.requestFieldSize() + " bytes";
            }
        }
        return null;
    }

    private static String value(Http2Headers frame, String name) {
        CharSequence value = frame.get(name);
        return value == null ? null : value.toString();
    }

    private static long parseLength(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    private void body(byte[] chunk, boolean last) {
        if (exchange == null || bodyDone) {
            return;
        }
        bodyDone = last;
        exchange.body(chunk, last);
    }

    /** The server's own answer on this stream (431, 413, 503), then the stream ends; the app hears a disconnect if it had the request. */
    private void refuse(int status, String reason) {
        if (reason != null) {
            Log.warning("Invalid HTTP request received: " + reason);
        }
        if (response != null && !response.preempt()) {
            reset(Http2Error.CANCEL);
            return;
        }
        byte[] text = (status == 503 ? "Service Unavailable" : status == 413 ? "Request Entity Too Large"
                : "Request Header Fields Too Large").getBytes(StandardCharsets.US_ASCII);
        Http2Headers headers = new DefaultHttp2Headers().status(Integer.toString(status))
                .add("content-type", "text/plain; charset=utf-8").add("content-length", Integer.toString(text.length));
        StreamObserver observer = ctx.pipeline().get(StreamObserver.class); // with --metrics
        if (observer != null) {
            observer.refusing();
        }
        ctx.write(new DefaultHttp2HeadersFrame(headers, false));
        ctx.writeAndFlush(new DefaultHttp2DataFrame(io.netty.buffer.Unpooled.wrappedBuffer(text), true))
                .addListener(f -> ctx.close()); // the client may still be sending: RST_STREAM ends that
        bodyDone = true;
    }

    private void reset(Http2Error error) {
        ctx.writeAndFlush(new DefaultHttp2ResetFrame(error)).addListener(f -> ctx.close());
    }

    /** The app's response is fully written (or failed): on the event loop, once. */
    void responseDone(boolean success) {
        if (!ctx.executor().inEventLoop()) {
            ctx.executor().execute(() -> responseDone(success));
            return;
        }
        if (responseDone || exchange == null) {
            return;
        }
        responseDone = true;
        state.inFlight().decrementAndGet();
        connection.closed(this);
        cancelStallTimer();
        if (!bodyDone || !success) {
            ctx.close(); // the request body is not read to its end: RST_STREAM (NO_ERROR would also do)
        }
    }

    void pauseReading(boolean paused) {
        ctx.channel().config().setAutoRead(!paused);
        if (!paused) {
            ctx.read();
        }
    }

    /** Graceful shutdown timed out: cancel the app (the stream resets when its task ends without a response). */
    void cancel() {
        if (exchange != null && !responseDone) {
            Log.warning("Cancelling " + description + ": still running at the graceful shutdown timeout");
            exchange.cancel();
        }
    }

    String client() {
        return ctx.channel().parent().remoteAddress() instanceof InetSocketAddress address
                ? address.getAddress().getHostAddress() + ":" + address.getPort() : "unix";
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) {
        if (writable()) {
            cancelStallTimer();
            if (exchange != null && !responseDone) {
                exchange.writable();
            }
        } else {
            stalled();
        }
        context.fireChannelWritabilityChanged();
    }

    /**
     * Whether the app may write more: the stream channel has room and the client's window for this
     * stream and the connection is open. Netty's stream channel alone is not enough: a stream whose
     * window was zero from its first frame (SETTINGS_INITIAL_WINDOW_SIZE 0) never turns unwritable,
     * and its DATA would pile up in the flow controller. Any thread (a racy read of the window is
     * corrected by the event-loop poll in {@link #stalled}).
     */
    boolean writable() {
        Http2Stream stream = http2Stream;
        if (!ctx.channel().isWritable()) {
            return false;
        }
        try {
            return stream == null || flow.isWritable(stream);
        } catch (RuntimeException closed) { // the stream ended under us: the disconnect path takes over
            return true;
        }
    }

    /**
     * The app's send() waits (from StreamResponse, any thread): until {@link #writable}, looked at
     * every {@link #POLL_MILLIS} ms on the event loop, wakes it; a stream still shut after
     * --timeout-write is reset (the client keeps its window at zero).
     */
    void stalled() {
        if (!ctx.executor().inEventLoop() || (exchange == null && response != null)) {
            // the latter: the app's first step ran inside HttpApp.open, before begin() had its exchange
            ctx.executor().execute(this::stalled);
            return;
        }
        if (stallTimer != null || exchange == null || responseDone) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(state.config().limits().writeTimeoutSeconds());
        stallTimer = ctx.executor().scheduleAtFixedRate(() -> {
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

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event instanceof Http2ResetFrame reset) {
            Log.debug("stream reset by the client: " + reset.errorCode());
        }
        context.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        cancelStallTimer();
        if (exchange != null && !responseDone) {
            responseDone = true;
            state.inFlight().decrementAndGet();
            connection.closed(this);
            exchange.disconnected();
        }
        context.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        Log.debug("HTTP/2 stream error: " + cause);
        context.close();
    }
}
