package dev.apx.server.http2;

import dev.apx.log.Log;
import dev.apx.server.shared.CancelEvent;
import dev.apx.server.shared.FirstRequest;
import dev.apx.server.shared.ServerState;
import dev.apx.server.shared.ShutdownEvent;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.handler.codec.http.HttpServerUpgradeHandler.UpgradeEvent;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2LocalFlowController;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.handler.timeout.IdleStateEvent;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.netty.handler.codec.http2.Http2CodecUtil.HTTP_UPGRADE_STREAM_ID;

/**
 * One HTTP/2 connection: Netty's connection handler (the codec: frames, HPACK, flow control, the
 * defences {@link Http2Setup} switches on) with its frames read straight into a {@link StreamRequest}
 * per stream, kept as a property of Netty's stream. No channel or pipeline per stream: a stream is
 * a request's state and nothing more, and the responses of all streams written in one turn of the
 * event loop go out in one flush.
 *
 * <p>The server's events: at shutdown, GOAWAY (streams in flight finish, no new one starts, then the
 * connection closes); at the graceful timeout, each running stream's app is cancelled; idle for
 * {@code --timeout-keep-alive} with no stream open since the last one ended, the connection closes
 * (as HTTP/1.1 counts from the last response). Event loop only, except {@link #flushSoon}'s callers'
 * tasks, which run there.
 */
final class ConnectionHandler extends Http2ConnectionHandler implements Http2FrameListener {
    private final ServerState state;
    private final GoAwayAwareConnection goAwayAware; // connection(), typed
    private final Http2Connection.PropertyKey requestKey;
    private final long keepAliveNanos;
    private final Set<StreamRequest> open = new HashSet<>();
    private final List<StreamRequest> readThisTurn = new ArrayList<>();
    private final Runnable flushTask = this::flushNow;
    private final Integer initialWindowSize;
    private final StreamHistory history = new StreamHistory();
    private ChannelHandlerContext ctx;
    private boolean flushQueued;
    private boolean outboundLimitLogged;
    private long lastStreamEnded = System.nanoTime();

    ConnectionHandler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings, ServerState state,
                      GoAwayAwareConnection connection) {
        super(decoder, encoder, settings);
        this.state = state;
        this.goAwayAware = connection;
        this.keepAliveNanos = TimeUnit.SECONDS.toNanos(state.config().keepAliveTimeoutSeconds());
        this.initialWindowSize = settings.initialWindowSize();
        decoder.frameListener(this);
        requestKey = connection().newKey();
        connection().addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamAdded(Http2Stream stream) {
                history.opened(stream.id(), stream.state() == Http2Stream.State.HALF_CLOSED_REMOTE);
            }

            @Override
            public void onStreamHalfClosed(Http2Stream stream) {
                if (stream.state() == Http2Stream.State.HALF_CLOSED_REMOTE) {
                    history.endedByClient(stream.id());
                }
            }

            @Override
            public void onStreamClosed(Http2Stream stream) {
                StreamRequest request = stream.getProperty(requestKey);
                if (request != null) {
                    request.streamClosed();
                }
            }
        });
        connection().remote().flowController().listener(stream -> {
            StreamRequest request = stream.getProperty(requestKey);
            if (request != null) {
                request.writabilityChanged();
            }
        });
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) throws Exception {
        ctx = context;
        super.handlerAdded(context);
        FirstRequest.started(context.channel()); // HTTP/2 has its own graceful end (GOAWAY)
        // As Netty's frame codec: a larger initial window also widens the connection's (twice the
        // increase, so that one stream cannot take all of it).
        Http2LocalFlowController local = connection().local().flowController();
        int delta = initialWindowSize == null ? 0 : initialWindowSize - local.initialWindowSize(connection().connectionStream());
        if (delta > 0) {
            local.incrementWindowSize(connection().connectionStream(), Math.max(delta << 1, delta));
            flush(context);
        }
    }

    ChannelHandlerContext context() {
        return ctx;
    }

    ServerState state() {
        return state;
    }

    /** A flush once this turn of the event loop is over: the writes of every stream made in it go out in one writev. */
    void flushSoon() {
        if (!flushQueued) {
            flushQueued = true;
            if (ctx.channel().eventLoop() instanceof SingleThreadEventLoop loop) {
                loop.executeAfterEventLoopIteration(flushTask);
            } else { // --io loop: the hosted event loop has no such turn; a task behind the ones queued
                ctx.executor().execute(flushTask);
            }
        }
    }

    private void flushNow() {
        flushQueued = false;
        flush(ctx);
    }

    void opened(StreamRequest request) {
        open.add(request);
    }

    void closed(StreamRequest request) {
        open.remove(request);
        lastStreamEnded = System.nanoTime();
    }

    // ---- frames in

    @Override
    public void onHeadersRead(ChannelHandlerContext context, int streamId, Http2Headers headers, int padding, boolean endStream) {
        Http2Stream stream = connection().stream(streamId);
        if (stream == null) {
            return; // already closed (a reset crossed the frame)
        }
        StreamRequest request = stream.getProperty(requestKey);
        if (request == null) {
            request = new StreamRequest(this, stream);
            stream.setProperty(requestKey, request);
            readThisTurn.add(request);
            try {
                request.begin(headers, endStream);
            } catch (RuntimeException e) { // this stream's failure, not the connection's
                request.failed(e);
            }
        } else if (endStream) { // request trailers: the end of the body, their fields unused
            readThisTurn.add(request);
            request.trailers();
        }
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext context, int streamId, Http2Headers headers, int streamDependency,
                              short weight, boolean exclusive, int padding, boolean endStream) {
        onHeadersRead(context, streamId, headers, padding, endStream);
    }

    /** The bytes returned are handed back to the client's window now; a paused request returns them when it resumes. */
    @Override
    public int onDataRead(ChannelHandlerContext context, int streamId, ByteBuf data, int padding, boolean endOfStream) {
        Http2Stream stream = connection().stream(streamId);
        StreamRequest request = stream == null ? null : stream.getProperty(requestKey);
        if (request == null) {
            return data.readableBytes() + padding;
        }
        readThisTurn.add(request);
        return request.data(data, padding, endOfStream);
    }

    /** What a paused request held back, now read by the app: the client may send that much more. */
    void consumed(Http2Stream stream, int bytes) {
        try {
            connection().local().flowController().consumeBytes(stream, bytes);
            flushSoon();
        } catch (Http2Exception e) {
            onError(ctx, true, e);
        }
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext context, int streamId, long errorCode) {
        Log.debug("stream reset by the client: " + errorCode); // the codec closes the stream: the request hears a disconnect
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) throws Exception {
        startRequestsRead();
        super.channelReadComplete(context); // and flushes what the codec wrote (SETTINGS ack, WINDOW_UPDATE)
    }

    /** The end of what was read: the apps of the requests it began start now (their first receive() finds the body that came along). */
    private void startRequestsRead() {
        for (StreamRequest request : readThisTurn) {
            request.readComplete();
        }
        readThisTurn.clear();
    }

    @Override
    public void onPriorityRead(ChannelHandlerContext context, int streamId, int dependency, short weight, boolean exclusive) {
    }

    @Override
    public void onSettingsAckRead(ChannelHandlerContext context) {
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext context, Http2Settings settings) {
    }

    @Override
    public void onPingRead(ChannelHandlerContext context, long data) {
    }

    @Override
    public void onPingAckRead(ChannelHandlerContext context, long data) {
    }

    @Override
    public void onPushPromiseRead(ChannelHandlerContext context, int streamId, int promisedStreamId, Http2Headers headers, int padding) {
    }

    @Override
    public void onGoAwayRead(ChannelHandlerContext context, int lastStreamId, long errorCode, ByteBuf debugData) {
    }

    @Override
    public void onWindowUpdateRead(ChannelHandlerContext context, int streamId, int windowSizeIncrement) {
    }

    @Override
    public void onUnknownFrame(ChannelHandlerContext context, byte frameType, int streamId, Http2Flags flags, ByteBuf payload) {
    }

    // ---- the connection's events

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) throws Exception {
        super.channelWritabilityChanged(context);
        if (context.channel().isWritable()) {
            for (StreamRequest request : List.copyOf(open)) {
                request.writabilityChanged();
            }
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) throws Exception {
        if (event instanceof UpgradeEvent upgrade) { // Upgrade: h2c: the HTTP/1.1 request is stream 1, already half closed (H2cUpgrade takes up none with a body)
            upgrade.upgradeRequest().headers().set(HttpConversionUtil.ExtensionHeaderNames.SCHEME.text(), "http"); // h2c: cleartext
            onHeadersRead(context, HTTP_UPGRADE_STREAM_ID, HttpConversionUtil.toHttp2Headers(upgrade.upgradeRequest(), true), 0, true);
            startRequestsRead();
            flushSoon();
            return;
        }
        if (event == ShutdownEvent.INSTANCE) {
            context.channel().close(); // through this handler's close: GOAWAY, then waits for the active streams
            return;
        }
        if (event == CancelEvent.INSTANCE) {
            for (StreamRequest request : List.copyOf(open)) {
                request.cancel();
            }
            return;
        }
        if (event instanceof IdleStateEvent) {
            // The idle timer counts frames, and a stream that just ended (a reset written but not yet
            // flushed) may not count: closing then cut the client off before its RST_STREAM arrived.
            if (open.isEmpty() && System.nanoTime() - lastStreamEnded >= keepAliveNanos) {
                context.channel().close();
            }
            return;
        }
        super.userEventTriggered(context, event);
    }

    /**
     * A connection error from the client's side, which the codec answers with GOAWAY; or a limit on
     * what the server itself writes that the client provoked (the streams it makes the server reset,
     * CVE-2025-55163; control frames it does not read), which Netty reports as outbound: a refusal of
     * the client's all the same, logged once as every other is.
     */
    @Override
    protected void onConnectionError(ChannelHandlerContext context, boolean outbound, Throwable cause, Http2Exception http2Ex) {
        if (!outbound) {
            Log.warning("HTTP/2 connection from " + context.channel().remoteAddress() + " closed: " + cause.getMessage());
        } else if (http2Ex != null && http2Ex.error() == Http2Error.ENHANCE_YOUR_CALM) {
            if (!outboundLimitLogged) { // each frame written after the limit reports it again
                outboundLimitLogged = true;
                Log.warning("HTTP/2 connection from " + context.channel().remoteAddress() + " closed: " + cause.getMessage());
            }
        } else {
            Log.debug("HTTP/2 connection from " + context.channel().remoteAddress() + " closed on our side: " + cause);
        }
        super.onConnectionError(context, outbound, cause, http2Ex);
    }

    /**
     * A stream error the codec found in what the client sent. Netty forgets a stream when it closes,
     * so a HEADERS or DATA frame on an id it no longer knows gets its lesser error, RST_STREAM
     * STREAM_CLOSED; {@link StreamHistory} knows better where RFC 9113 demands a connection error.
     */
    @Override
    protected void onStreamError(ChannelHandlerContext context, boolean outbound, Throwable cause, Http2Exception.StreamException error) {
        Log.debug("HTTP/2 stream " + error.streamId() + ": " + error.error() + " " + error.getMessage());
        Http2Stream closing = connection().stream(error.streamId());
        if (outbound && error.error() == Http2Error.STREAM_CLOSED && (closing == null || closing.state() == Http2Stream.State.CLOSED)) {
            // Response frames still queued when the stream closed (the client's RST_STREAM, typically while
            // an app started during the read has already answered): the stream is over, and a RST_STREAM of
            // ours would answer the client's (RFC 9113 5.4.2 forbids it) and count against the limit on the
            // resets the server writes, refusing a rapid reset flood a second time.
            return;
        }
        if (!outbound && error.error() == Http2Error.REFUSED_STREAM) {
            openToRefuse(error.streamId());
        }
        Http2Exception connectionError = outbound ? null : connectionError(error);
        if (connectionError != null) {
            onConnectionError(context, false, connectionError, connectionError);
            return;
        }
        Http2Stream stream = connection().stream(error.streamId());
        if (!outbound && stream != null && error.error() == Http2Error.PROTOCOL_ERROR
                && stream.state() == Http2Stream.State.HALF_CLOSED_REMOTE && stream.isTrailersReceived()) {
            // HEADERS after the client ended the stream: Netty counts "too many headers" before it looks
            // at the state; RFC 9113 5.1 answers any such frame on a half-closed (remote) stream with STREAM_CLOSED
            error = (Http2Exception.StreamException) Http2Exception.streamError(error.streamId(), Http2Error.STREAM_CLOSED,
                    "HEADERS on the half-closed (remote) stream %d (RFC 9113 5.1)", error.streamId());
        }
        super.onStreamError(context, outbound, cause, error);
    }

    /**
     * A stream refused for the stream limit (SETTINGS_MAX_CONCURRENT_STREAMS) is one Netty never
     * created: its id stays "idle" to Netty, and DATA the client had already sent on it would be a
     * connection error (a frame on an idle stream) that takes every stream of the connection with it.
     * RFC 9113 5.1: the client opened it, the reset closes it, frames that crossed the reset are not
     * the client's fault. So it is created here, one over the limit for this call only, and the
     * RST_STREAM REFUSED_STREAM that follows closes it: Netty then knows the id, and what crosses the
     * reset gets a stream error at most. After the GOAWAY no stream above its last-stream-id can be
     * created: {@link GoAwayAwareConnection} keeps the id instead, and what crosses the reset is ignored.
     */
    private void openToRefuse(int id) {
        Http2Connection.Endpoint<?> client = connection().remote();
        if (connection().stream(id) != null || id <= client.lastStreamCreated() || !client.isValidStreamId(id)) {
            return;
        }
        if (connection().goAwaySent()) {
            goAwayAware.refusedAfterGoAway(id);
            return;
        }
        int limit = client.maxActiveStreams();
        client.maxActiveStreams(limit + 1);
        try {
            client.createStream(id, false);
        } catch (Http2Exception e) { // not creatable after all: Netty's reset of an unknown id stands
            Log.debug("HTTP/2 refused stream " + id + " not created: " + e.getMessage());
        } finally {
            client.maxActiveStreams(limit);
        }
    }

    /** The connection error RFC 9113 demands where Netty, no longer knowing the stream, reset it. */
    private Http2Exception connectionError(Http2Exception.StreamException error) {
        int id = error.streamId();
        Http2Connection.Endpoint<?> client = connection().remote();
        if (connection().stream(id) != null) {
            return null;
        }
        if (id > client.lastStreamCreated()) { // refused before Netty created it (its headers, the stream limit)
            history.opened(id, false);
            return null;
        }
        if (error.error() != Http2Error.STREAM_CLOSED) {
            return null;
        }
        return switch (history.seen(id)) {
            case NEVER_OPENED -> Http2Exception.connectionError(Http2Error.PROTOCOL_ERROR,
                    "stream %d opened after stream %d (RFC 9113 5.1.1)", id, client.lastStreamCreated());
            case ENDED_BY_CLIENT -> Http2Exception.connectionError(Http2Error.STREAM_CLOSED,
                    "a frame on stream %d after its END_STREAM (RFC 9113 5.1)", id);
            case OPEN_OR_RESET, FORGOTTEN -> null;
        };
    }

    /** The socket's errors (the codec's own go to {@link #onConnectionError}). */
    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) throws Exception {
        if (Http2CodecUtil.getEmbeddedHttp2Exception(cause) != null) {
            super.exceptionCaught(context, cause);
            return;
        }
        Log.debug("HTTP/2 connection error: " + cause);
        context.close();
    }
}
