package dev.apx.server.http1;

import dev.apx.log.Log;
import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.api.RequestHead;
import dev.apx.server.shared.CancelEvent;
import dev.apx.server.shared.ErrorResponses;
import dev.apx.server.shared.FirstRequest;
import dev.apx.server.shared.ServerState;
import dev.apx.server.shared.ShutdownEvent;
import dev.apx.server.tls.TlsSession;
import dev.apx.server.websocket.WebSocketUpgrade;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Last in the pipeline: turns decoded requests into {@link Exchange}s, one at a time per
 * connection. Pipelined requests wait in {@link #queued} (reading stops while it is long) so
 * responses go out in request order. The body is copied into byte[] and its ByteBuf released here.
 *
 * <p>Threads: every field is touched on the channel's event loop only; the {@link NettyResponse}
 * comes back here through {@link #responseDone} and {@link #pauseReading}, both posted to it.
 */
public final class ExchangeHandler extends ChannelInboundHandlerAdapter {
    private static final int MAX_QUEUED = 64;
    /** How long a request in flight at the client's FIN has to answer before its app hears http.disconnect. */
    static final long HALF_CLOSE_GRACE_MILLIS = 1000;

    private final ServerState state;
    private final ArrayDeque<Object> queued = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private Exchange current;
    private NettyResponse currentResponse;
    private boolean bodyDone;
    private boolean discarding; // dropping the rest of a body whose response is already complete
    private boolean appPaused;
    private boolean closing;
    private boolean stopping; // the server shuts down: the current request's body still comes in, no new request starts
    private boolean inputClosed; // the client half-closed: what it sent is answered, then the connection closes
    private ScheduledFuture<?> bodyTimer; // --timeout-request-body, while a body is awaited
    private long lastRead; // System.nanoTime() of the last read from the socket, or of the moment reading resumed

    public ExchangeHandler(ServerState state) {
        this.state = state;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
        } else if (!queued.isEmpty()) {
            queued.add(msg);
            updateAutoRead();
        } else {
            dispatch(msg);
        }
    }

    private boolean busy() {
        return current != null || discarding;
    }

    private void dispatch(Object msg) {
        if (msg instanceof HttpRequest && stopping) {
            closing = true; // a request pipelined behind the last one: it and all after it are dropped
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            if (busy()) {
                queued.add(msg);
                updateAutoRead();
                return;
            }
            begin(request);
        }
        if (msg instanceof HttpContent content) {
            try {
                body(content);
            } finally {
                content.release();
            }
        } else if (!(msg instanceof HttpRequest)) {
            ReferenceCountUtil.release(msg);
        }
    }

    private void begin(HttpRequest request) {
        long started = state.observer() != HttpObserver.NONE ? System.nanoTime() : 0; // --metrics times the request from here
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            HttpResponseStatus status = cause instanceof RequestRejected rejected ? rejected.status()
                    : cause instanceof TooLongHttpHeaderException ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                    : cause instanceof TooLongHttpLineException ? HttpResponseStatus.REQUEST_URI_TOO_LONG
                    : cause instanceof TooLongFrameException ? HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE
                    : HttpResponseStatus.BAD_REQUEST;
            Log.warning("Invalid HTTP request received: " + printable(cause.getMessage()));
            closing = true;
            discardQueue();
            ErrorResponses.sendAndClose(ctx.channel(), status, state, request.method().name(), started, 0);
            return;
        }
        int limit = state.config().limitConcurrency();
        if (limit > 0 && state.inFlight().get() >= limit) {
            Log.warning("Exceeded concurrency limit.");
            closing = true;
            discardQueue();
            ErrorResponses.sendAndClose(ctx.channel(), HttpResponseStatus.SERVICE_UNAVAILABLE, state, request.method().name(), started, 0);
            return;
        }
        if (state.webSockets() != null && WebSocketUpgrade.requested(request)) {
            closing = true; // this handler is done with the connection
            discardQueue();
            FirstRequest.started(ctx.channel());
            WebSocketUpgrade.begin(ctx, request, head(request), state, started);
            return;
        }
        state.inFlight().incrementAndGet();
        FirstRequest.started(ctx.channel()); // after the increment: Server.drain reads them in the other order
        state.countRequest();
        RequestHead head = head(request);
        bodyDone = false;
        NettyResponse response = new NettyResponse(ctx.channel(), request, HttpUtil.isKeepAlive(request), this, state, started);
        currentResponse = response;
        if (state.stopping().get()) { // a connection accepted just before the shutdown: its first request, served, is its last
            stopping = true;
            response.makeLastOnConnection();
        }
        current = state.app().open(head, response);
    }

    private RequestHead head(HttpRequest request) {
        List<String[]> headers = new ArrayList<>(request.headers().size());
        for (Map.Entry<String, String> header : request.headers()) {
            headers.add(new String[]{header.getKey(), header.getValue()});
        }
        String path = ctx.channel().localAddress() instanceof DomainSocketAddress unix ? unix.path() : null;
        boolean bodyless = !HttpUtil.isTransferEncodingChunked(request) && HttpUtil.getContentLength(request, 0L) == 0L;
        return new RequestHead(request.method().name(), request.uri(), request.protocolVersion().text(), headers,
                ctx.channel().remoteAddress() instanceof InetSocketAddress client ? client : null,
                ctx.channel().localAddress() instanceof InetSocketAddress server ? server : null, path, bodyless,
                TlsSession.of(ctx.channel()));
    }

    private void body(HttpContent content) {
        if (content.decoderResult().isFailure()) {
            if (!(content instanceof HttpRequest)) { // a refused head is a full request: begin() answered it
                rejectBody(content.decoderResult().cause());
            }
            return;
        }
        boolean last = content instanceof LastHttpContent;
        if (discarding) {
            discarding = !last;
            if (last) {
                drainQueue();
            }
            return;
        }
        if (current == null || bodyDone) {
            return; // nothing is waiting for it
        }
        bodyDone = last;
        currentResponse.countRequestBytes(content.content().readableBytes());
        if (content.content().isReadable() || last) {
            current.body(ByteBufUtil.getBytes(content.content()), last);
        }
    }

    /**
     * The body broke the rules after the app got the request (a bad chunk, too long): answer with
     * the status if the app has not started its response, then close; the app sees a disconnect.
     */
    private void rejectBody(Throwable cause) {
        Log.warning("Invalid HTTP request body received: " + printable(cause.getMessage()));
        closing = true;
        discardQueue();
        HttpResponseStatus status = cause instanceof RequestRejected rejected ? rejected.status() : HttpResponseStatus.BAD_REQUEST;
        if (currentResponse != null && currentResponse.preempt()) {
            currentResponse.refuse(status);
        } else {
            ctx.close();
        }
    }

    /** A message that may quote the client's bytes, safe for a log line: controls and non-ASCII as \\xNN. */
    private static String printable(String message) {
        StringBuilder out = new StringBuilder();
        for (char c : String.valueOf(message).toCharArray()) {
            out.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\x%02x", (int) c));
        }
        return out.toString();
    }

    /** {@code response} went out (event loop); ignored when the connection closed first. */
    void responseDone(NettyResponse response, boolean keepAlive) {
        if (response != currentResponse) {
            return;
        }
        state.inFlight().decrementAndGet();
        current = null;
        currentResponse = null;
        appPaused = false;
        if (!keepAlive || closing || stopping) {
            closing = true;
            discardQueue();
            ctx.close();
            return;
        }
        discarding = !bodyDone;
        lastRead = System.nanoTime();
        drainQueue();
        updateAutoRead();
        armBodyTimer();
        closeIfInputDone();
    }

    /**
     * After the client's FIN: every request it sent before is answered if its app answers within
     * {@link #HALF_CLOSE_GRACE_MILLIS} (a FIN is also how a client that left closes, and an app must
     * then hear of it: its request is not kept waiting for a reader that may be gone); the
     * connection closes once none is left, or at once when a body was cut short by the FIN.
     */
    private void closeIfInputDone() {
        if (!inputClosed || closing) {
            return;
        }
        if (queued.isEmpty() && (current == null || !bodyDone)) {
            closing = true;
            ctx.close();
            return;
        }
        if (current != null) {
            Exchange answering = current;
            ctx.executor().schedule(() -> {
                if (current == answering && !closing) {
                    closing = true;
                    ctx.close(); // the app hears http.disconnect
                }
            }, HALF_CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Flow control of the request body, from the app side (posted to the event loop). */
    void pauseReading(boolean paused) {
        appPaused = paused;
        lastRead = System.nanoTime(); // paused, the client is not the one who waits; resumed, it gets the full time again
        updateAutoRead();
    }

    /**
     * The app asked for the body of a request that sent {@code Expect: 100-continue} (event loop):
     * the client gets its 100 now, unless the request is no longer current.
     */
    void continueWanted(NettyResponse response) {
        if (response == currentResponse && !closing) {
            response.sendContinue();
            lastRead = System.nanoTime();
        }
    }

    /** Whether the server is waiting for request body bytes only the client can make come. */
    private boolean awaitingBody() {
        boolean body = (current != null && !bodyDone) || discarding;
        return body && !closing && !appPaused && !(currentResponse != null && currentResponse.awaitingContinue());
    }

    /** At most one timer per connection, armed when a read leaves a body incomplete; it re-arms itself while one is. */
    private void armBodyTimer() {
        if (bodyTimer == null && ((current != null && !bodyDone) || discarding)) {
            bodyTimer = ctx.executor().schedule(this::bodyTimerFired, state.config().limits().bodyTimeoutSeconds(), TimeUnit.SECONDS);
        }
    }

    /**
     * {@code --timeout-request-body} (nginx's client_body_timeout): no byte for that long while a body
     * was awaited (not while the app paused reading, nor while a 100 Continue is still owed) gets a 408
     * if the app has not answered yet, and the connection closes; the app sees a disconnect.
     */
    private void bodyTimerFired() {
        bodyTimer = null;
        boolean body = (current != null && !bodyDone) || discarding;
        if (!body || closing || !ctx.channel().isActive()) {
            return;
        }
        long timeout = TimeUnit.SECONDS.toNanos(state.config().limits().bodyTimeoutSeconds());
        long idle = System.nanoTime() - lastRead;
        if (!awaitingBody() || idle < timeout) {
            if (!awaitingBody()) {
                lastRead = System.nanoTime();
            }
            bodyTimer = ctx.executor().schedule(this::bodyTimerFired, awaitingBody() ? timeout - idle : timeout, TimeUnit.NANOSECONDS);
            return;
        }
        Log.warning("Request body not complete: nothing received for " + state.config().limits().bodyTimeoutSeconds()
                + " s, closing the connection");
        closing = true;
        discardQueue();
        if (currentResponse != null && currentResponse.preempt()) {
            currentResponse.refuse(HttpResponseStatus.REQUEST_TIMEOUT);
        } else {
            ctx.close();
        }
    }

    private void drainQueue() {
        while (!queued.isEmpty() && !(queued.peek() instanceof HttpRequest && busy())) {
            dispatch(queued.poll());
        }
        if (current != null) {
            current.readComplete();
        }
        updateAutoRead();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) {
        lastRead = System.nanoTime();
        armBodyTimer();
        if (current != null) {
            current.readComplete();
        }
        context.fireChannelReadComplete();
    }

    private void updateAutoRead() {
        boolean read = !(appPaused || queued.size() > MAX_QUEUED);
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    private void discardQueue() {
        while (!queued.isEmpty()) {
            ReferenceCountUtil.release(queued.poll());
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        if (bodyTimer != null) {
            bodyTimer.cancel(false);
            bodyTimer = null;
        }
        discardQueue();
        if (current != null) {
            Exchange gone = current;
            current = null;
            currentResponse = null;
            state.inFlight().decrementAndGet();
            gone.disconnected();
        }
        context.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) {
        if (current != null && context.channel().isWritable()) {
            current.writable();
        }
        context.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event instanceof ChannelInputShutdownEvent) { // the client half-closed (ChannelSetup allows it)
            inputClosed = true;
            discarding = false; // the rest of that body will not come
            closeIfInputDone();
            return;
        }
        if (event == ShutdownEvent.INSTANCE) {
            discardQueue(); // requests pipelined behind the current one are not started, as in Uvicorn
            if (current != null) { // the current request finishes, its upload included; the connection closes after it
                stopping = true;
                currentResponse.makeLastOnConnection();
            } else if (!FirstRequest.awaited(context.channel())) { // idle: its client resends on a new connection
                closing = true;
                context.close();
            } // else just accepted: its first request may be on the wire; it is served as the last (Server.drain waits a moment)
            return;
        }
        if (event instanceof IdleStateEvent) {
            if (!busy() && queued.isEmpty()) {
                context.close();
            }
            return;
        }
        if (event == CancelEvent.INSTANCE) {
            if (current != null) {
                Log.warning("Cancelling " + printable(currentResponse.describeRequest()) + ": still running at the graceful shutdown timeout");
                current.cancel();
            }
            return;
        }
        context.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        Log.debug("connection error: " + cause);
        context.close();
    }
}
