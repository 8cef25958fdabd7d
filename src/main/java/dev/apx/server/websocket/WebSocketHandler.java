package dev.apx.server.websocket;

import dev.apx.log.Log;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.api.WebSocketSession;
import dev.apx.server.shared.DefaultHeaders;
import dev.apx.server.shared.ServerState;
import dev.apx.server.shared.ShutdownEvent;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.compression.DecompressionException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.Utf8FrameValidator;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionData;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionUtil;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateServerExtensionHandshaker;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Last in the pipeline of an upgraded connection, in place of {@code ExchangeHandler}: the
 * handshake (when the app accepts), reassembly of fragmented messages, ping/pong, the keep-alive
 * ping, and the closing handshake. Frame parsing, masking, UTF-8 checks and permessage-deflate are
 * Netty's handlers in front of it; their protocol faults (1002, 1007, 1009) close the connection
 * and are reported to the app with that code.
 *
 * <p>Threads: every field is touched on the channel's event loop only. Its {@link #write} sees
 * the app's messages (written through the channel by {@link NettyWebSocket}) and drops those that
 * come after the connection stopped being open, so no data frame follows a close frame.
 */
final class WebSocketHandler extends ChannelDuplexHandler {
    private static final long CLOSE_TIMEOUT_SECONDS = 10; // as Uvicorn: wait this long for the client's close frame

    private enum Phase { CONNECTING, OPEN, CLOSING, DONE }

    private final ServerState state;
    private final WebSocketConfig config;
    private final HttpRequest request;
    private ChannelHandlerContext ctx;
    private WebSocketSession session;
    private String path;
    private Phase phase = Phase.CONNECTING;
    private CompositeByteBuf fragments; // a message whose final fragment has not come yet
    private boolean fragmentsText;
    private int code = 1006; // what the app is told when the connection ends
    private String reason = "";
    private boolean reported;
    private boolean appPaused;
    private boolean pausedSinceDeadline; // the app paused reading since the pong deadline was set
    private byte[] pingPayload;
    private ScheduledFuture<?> pingTimer;
    private ScheduledFuture<?> pongDeadline;

    WebSocketHandler(ServerState state, HttpRequest request) {
        this.state = state;
        this.config = state.webSockets().config();
        this.request = request;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
    }

    /** Hands the request to the app, which answers through a {@link NettyWebSocket}. */
    void open(RequestHead head) {
        path = head.uri();
        session = state.webSockets().app().open(head, new NettyWebSocket(ctx.channel(), this, state.webSockets().config().maxQueue()));
    }

    // ---- the app's decisions (event loop)

    void accept(String subprotocol, List<String[]> headers) {
        if (phase != Phase.CONNECTING || !ctx.channel().isActive()) {
            return;
        }
        WebSocketServerExtension deflate = config.perMessageDeflate() ? negotiateDeflate() : null;
        WebSocketDecoderConfig decoder = WebSocketDecoderConfig.newBuilder()
                .maxFramePayloadLength(config.maxSize())
                .allowExtensions(deflate != null) // else a frame with RSV1 set is a protocol error (1002)
                .closeOnProtocolViolation(true)
                .build();
        WebSocketServerHandshaker handshaker = new CloseCheckingHandshaker(request.uri(), decoder); // WebSocketUpgrade checked the version: 13
        HttpHeaders extra = new DefaultHttpHeaders();
        DefaultHeaders.add(extra, state.config());
        for (String[] header : headers) {
            extra.add(header[0], header[1]);
        }
        if (subprotocol != null) {
            extra.set(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL, subprotocol);
        }
        if (deflate != null) {
            extra.set(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS, describe(deflate.newReponseData()));
        }
        phase = Phase.OPEN;
        handshaker.handshake(ctx.channel(), new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, request.uri(),
                Unpooled.EMPTY_BUFFER, request.headers(), EmptyHttpHeaders.INSTANCE), extra, ctx.newPromise());
        ChannelPipeline pipeline = ctx.pipeline();
        if (deflate != null) { // between the frame codec (added in front by the handshake) and this handler
            pipeline.addBefore(ctx.name(), "wsinflate", deflate.newExtensionDecoder());
            pipeline.addBefore(ctx.name(), "wsdeflate", deflate.newExtensionEncoder());
        }
        pipeline.addBefore(ctx.name(), "utf8", new Utf8FrameValidator(true));
        access("[accepted]");
        schedulePing();
    }

    private WebSocketServerExtension negotiateDeflate() {
        String offered = request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS);
        if (offered == null) {
            return null;
        }
        // level 6, client may ask for a smaller server window and no context takeover; inflating stops at the size limit
        PerMessageDeflateServerExtensionHandshaker handshaker =
                new PerMessageDeflateServerExtensionHandshaker(6, true, 15, true, false, inflateLimit());
        for (WebSocketExtensionData data : WebSocketExtensionUtil.extractExtensions(offered)) {
            WebSocketServerExtension extension = handshaker.handshakeExtension(data);
            if (extension != null) {
                return extension;
            }
        }
        return null;
    }

    /** A bit above the size limit, so a message of exactly the limit inflates and the exact check is ours. */
    private int inflateLimit() {
        return (int) Math.min(Integer.MAX_VALUE, config.maxSize() + 65536L);
    }

    private static String describe(WebSocketExtensionData data) {
        StringBuilder out = new StringBuilder(data.name());
        for (Map.Entry<String, String> parameter : data.parameters().entrySet()) {
            out.append("; ").append(parameter.getKey());
            if (parameter.getValue() != null) {
                out.append('=').append(parameter.getValue());
            }
        }
        return out.toString();
    }

    void deny(int status, List<String[]> headers, byte[] body) {
        if (phase != Phase.CONNECTING) {
            return;
        }
        phase = Phase.DONE;
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
                Unpooled.wrappedBuffer(body));
        HttpHeaders out = response.headers();
        DefaultHeaders.add(out, state.config());
        for (String[] header : headers) {
            out.add(header[0], header[1]);
        }
        if (!out.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            out.set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        }
        out.set(HttpHeaderNames.CONNECTION, "close"); // as Uvicorn: a denied upgrade ends the connection
        access(String.valueOf(status));
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    void close(int closeCode, String closeReason) {
        if (phase != Phase.OPEN) {
            return;
        }
        report(closeCode, closeReason);
        sendClose(closeCode, closeReason);
    }

    /** Our close frame; then data is dropped until the client's close frame, or the timeout. */
    private void sendClose(int closeCode, String closeReason) {
        phase = Phase.CLOSING;
        ctx.writeAndFlush(new CloseWebSocketFrame(closeCode, closeReason));
        ctx.channel().config().setAutoRead(true); // the client's answer must get through
        ctx.executor().schedule(() -> {
            ctx.close();
        }, CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    void pauseReading(boolean paused) {
        appPaused = paused;
        pausedSinceDeadline |= paused;
        if (phase == Phase.OPEN || phase == Phase.CONNECTING) {
            ctx.channel().config().setAutoRead(!paused);
        }
    }

    void abort() {
        phase = Phase.DONE;
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void write(ChannelHandlerContext context, Object msg, ChannelPromise promise) {
        if (phase != Phase.OPEN && (msg instanceof TextWebSocketFrame || msg instanceof BinaryWebSocketFrame)) {
            ReferenceCountUtil.release(msg);
            promise.trySuccess();
            return;
        }
        context.write(msg, promise);
    }

    // ---- frames from the client (event loop)

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        if (!(msg instanceof WebSocketFrame frame)) {
            ReferenceCountUtil.release(msg); // the rest of the upgrade request
            return;
        }
        try {
            switch (frame) {
                case CloseWebSocketFrame close -> closeReceived(close);
                case PingWebSocketFrame ping -> {
                    if (phase == Phase.OPEN || phase == Phase.CLOSING) {
                        ctx.writeAndFlush(new PongWebSocketFrame(ping.content().retain()));
                    }
                }
                case PongWebSocketFrame pong -> pongReceived(pong);
                default -> data(frame);
            }
        } finally {
            frame.release();
        }
    }

    private void data(WebSocketFrame frame) {
        if (phase != Phase.OPEN) {
            return; // as Uvicorn: messages after the server's close frame are dropped
        }
        boolean continuation = frame instanceof ContinuationWebSocketFrame;
        int size = frame.content().readableBytes() + (continuation && fragments != null ? fragments.readableBytes() : 0);
        if (size > config.maxSize()) {
            fault(1009, "Message exceeds the maximum size (" + config.maxSize() + " bytes)");
            return;
        }
        if (!continuation && frame.isFinalFragment()) { // the usual case: one frame, one message
            deliver(frame instanceof TextWebSocketFrame, frame.content());
            return;
        }
        if (!continuation) {
            fragments = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
            fragmentsText = frame instanceof TextWebSocketFrame;
        }
        fragments.addComponent(true, frame.content().retain());
        if (frame.isFinalFragment()) {
            CompositeByteBuf whole = fragments;
            fragments = null;
            try {
                deliver(fragmentsText, whole);
            } finally {
                whole.release();
            }
        }
    }

    private void deliver(boolean text, ByteBuf content) {
        if (text) {
            session.text(content.toString(StandardCharsets.UTF_8));
        } else {
            session.bytes(ByteBufUtil.getBytes(content));
        }
    }

    private void closeReceived(CloseWebSocketFrame close) {
        if (phase == Phase.CLOSING) { // the client answered our close frame
            ctx.close();
            return;
        }
        if (phase != Phase.OPEN) {
            return;
        }
        phase = Phase.DONE;
        CloseFrames.Fault fault = CloseFrames.fault(close.content());
        if (fault != null) { // RFC 6455 7.4.1, 8.1: the connection fails with 1002 or 1007; the client closes no more
            Log.debug("websocket close frame refused: " + fault.reason());
            report(fault.code(), fault.reason());
            ctx.writeAndFlush(new CloseWebSocketFrame(fault.code(), fault.reason())).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        int received = close.statusCode() < 0 ? 1005 : close.statusCode();
        report(received, close.statusCode() < 0 ? "" : close.reasonText());
        CloseWebSocketFrame answer = close.statusCode() < 0 ? new CloseWebSocketFrame() : new CloseWebSocketFrame(received, "");
        ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * Closes with {@code faultCode} and tells the app; Netty's own faults come through
     * {@link #exceptionCaught}. A message too big still gets the closing handshake (the client's
     * unread data would otherwise turn our close into a reset); an unanswered ping does not.
     */
    private void fault(int faultCode, String faultReason) {
        if (phase != Phase.OPEN) {
            return;
        }
        report(faultCode, faultReason);
        if (fragments != null) {
            fragments.release();
            fragments = null;
        }
        if (faultCode == 1011) {
            phase = Phase.DONE;
            ctx.writeAndFlush(new CloseWebSocketFrame(faultCode, faultReason)).addListener(ChannelFutureListener.CLOSE);
        } else {
            sendClose(faultCode, faultReason);
        }
    }

    // ---- keep-alive pings (event loop)

    private void schedulePing() {
        if (!config.pingInterval().isZero()) {
            pingTimer = ctx.executor().schedule(this::ping, config.pingInterval().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void ping() {
        pingTimer = null;
        if (phase != Phase.OPEN) {
            return;
        }
        pingPayload = new byte[4];
        ThreadLocalRandom.current().nextBytes(pingPayload);
        ctx.writeAndFlush(new PingWebSocketFrame(Unpooled.wrappedBuffer(pingPayload.clone())));
        if (config.pingTimeout().isZero()) {
            schedulePing();
        } else {
            armPongDeadline();
        }
    }

    private void armPongDeadline() {
        pausedSinceDeadline = appPaused;
        pongDeadline = ctx.executor().schedule(this::pongOverdue, config.pingTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * No pong in time: 1011, unless we are the reason: reading was paused for the app at some point
     * of this wait, so the pong may sit unread behind the messages the app has not taken yet.
     */
    private void pongOverdue() {
        if ((appPaused || pausedSinceDeadline) && phase == Phase.OPEN) {
            pausedSinceDeadline = appPaused;
            armPongDeadline();
            return;
        }
        pongDeadline = null;
        Log.debug("websocket keepalive ping timeout (reading paused: " + appPaused + ")");
        fault(1011, "keepalive ping timeout");
    }

    private void pongReceived(PongWebSocketFrame pong) {
        if (pongDeadline != null && Arrays.equals(pingPayload, ByteBufUtil.getBytes(pong.content()))) {
            pongDeadline.cancel(false);
            pongDeadline = null;
            schedulePing();
        }
    }

    // ---- the connection's end

    private void report(int endCode, String endReason) {
        if (!reported) {
            reported = true;
            code = endCode;
            reason = endReason;
            session.closed(endCode, endReason);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        if (cause instanceof CorruptedWebSocketFrameException corrupted) { // Netty sent the close frame already
            phase = Phase.DONE;
            report(corrupted.closeStatus().code(), corrupted.closeStatus().reasonText());
            return;
        }
        if (cause instanceof DecompressionException) { // inflated past the size limit
            fault(1009, "Message exceeds the maximum size (" + config.maxSize() + " bytes)");
            return;
        }
        Log.debug("websocket connection error: " + cause);
        context.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        phase = Phase.DONE;
        if (pingTimer != null) {
            pingTimer.cancel(false);
        }
        if (pongDeadline != null) {
            pongDeadline.cancel(false);
        }
        if (fragments != null) {
            fragments.release();
            fragments = null;
        }
        report(code, reason);
        state.inFlight().decrementAndGet();
        context.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) {
        if (context.channel().isWritable() && session != null) {
            session.writable();
        }
        context.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event == ShutdownEvent.INSTANCE) { // as Uvicorn: 1012 "service restart"
            if (phase == Phase.OPEN) {
                close(1012, "");
            } else if (phase == Phase.CONNECTING) {
                context.close();
            }
            return;
        }
        context.fireUserEventTriggered(event);
    }

    private void access(String outcome) {
        if (state.config().accessLog()) {
            String client = ctx.channel().remoteAddress() instanceof java.net.InetSocketAddress address
                    ? address.getAddress().getHostAddress() + ":" + address.getPort() : "unix";
            Log.access("%s - \"WebSocket %s\" %s".formatted(client, path, outcome));
        }
    }
}
