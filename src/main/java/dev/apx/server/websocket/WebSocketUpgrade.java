package dev.apx.server.websocket;

import dev.apx.log.Log;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.WebSocketHandshake;
import dev.apx.server.shared.ErrorResponses;
import dev.apx.server.shared.ServerState;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;

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
        String problem = WebSocketHandshake.problem(request.method().name(), request.protocolVersion().text(),
                request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_KEY), request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_VERSION));
        if (problem != null) {
            Log.warning("Invalid WebSocket handshake: " + problem);
            if (WebSocketHandshake.isUnsupportedVersion(problem)) { // 426 with the version we speak
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
}
