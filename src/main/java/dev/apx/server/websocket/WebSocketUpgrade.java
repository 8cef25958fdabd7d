package dev.apx.server.websocket;

import dev.apx.log.Log;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.api.RequestHead;
import dev.apx.server.shared.ErrorResponses;
import dev.apx.server.shared.ServerState;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;

import java.util.Base64;

/**
 * Spots an RFC 6455 upgrade request and hands the connection from {@code ExchangeHandler} to a
 * {@link WebSocketHandler}. Requests that ask for the upgrade but are not valid handshakes get a
 * 400 (426 for another protocol version) without reaching the app, as in Uvicorn's websockets.
 */
public final class WebSocketUpgrade {
    private WebSocketUpgrade() {
    }

    /** {@code Connection: upgrade} with {@code Upgrade: websocket} (any case, in lists). */
    public static boolean requested(HttpRequest request) {
        return request.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)
                && request.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true);
    }

    /**
     * Replaces {@code exchanges} (the HTTP handler, which called this from its event loop) with a
     * WebSocket handler and opens the app's session. The keep-alive idle timer goes: a WebSocket has its own pings.
     * {@code startedNanos}: when the request's head was read, for {@code --metrics}.
     */
    public static void begin(ChannelHandlerContext exchanges, HttpRequest request, RequestHead head, ServerState state, long startedNanos) {
        String problem = problem(request);
        if (problem != null) {
            Log.warning("Invalid WebSocket handshake: " + problem);
            if (problem.startsWith("unsupported")) { // 426 with the version we speak
                WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(exchanges.channel())
                        .addListener(ChannelFutureListener.CLOSE);
                state.observer().response(request.method().name(), HttpResponseStatus.UPGRADE_REQUIRED.code(),
                        System.nanoTime() - startedNanos, 0, 0);
            } else {
                ErrorResponses.sendAndClose(exchanges.channel(), HttpResponseStatus.BAD_REQUEST, state, request.method().name(),
                        startedNanos, 0);
            }
            return;
        }
        var pipeline = exchanges.pipeline();
        if (pipeline.get("idle") != null) {
            pipeline.remove("idle");
        }
        exchanges.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, false); // a WebSocket ends with the client's FIN
        WebSocketHandler handler = new WebSocketHandler(state, request);
        pipeline.replace(exchanges.handler(), "websocket", handler);
        if (state.observer() != HttpObserver.NONE) {
            pipeline.addBefore("websocket", "ws-observer", new WebSocketObserver(state.observer(), startedNanos));
        }
        state.inFlight().incrementAndGet();
        handler.open(head);
    }

    private static String problem(HttpRequest request) {
        if (!request.method().equals(HttpMethod.GET)) {
            return "method " + request.method() + " (GET required)";
        }
        if (!request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
            return "HTTP version " + request.protocolVersion() + " (HTTP/1.1 required)";
        }
        String key = request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_KEY);
        if (key == null || key.isBlank()) {
            return "missing Sec-WebSocket-Key header";
        }
        if (!validKey(key.strip())) { // RFC 6455 4.2.1: base64 of 16 bytes
            return "Sec-WebSocket-Key is not the base64 of 16 bytes";
        }
        String version = request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_VERSION);
        if (!"13".equals(version)) {
            return "unsupported Sec-WebSocket-Version " + version + " (13 required)";
        }
        return null;
    }

    private static boolean validKey(String key) {
        try {
            return key.length() == 24 && Base64.getDecoder().decode(key).length == 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
