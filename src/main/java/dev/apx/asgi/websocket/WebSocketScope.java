package dev.apx.asgi.websocket;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.Scope;
import dev.apx.server.api.RequestHead;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The ASGI 2.4 websocket scope: the HTTP scope's fields, less {@code method}, with ws/wss and the offered subprotocols. */
final class WebSocketScope {
    static final Map<String, Object> EXTENSIONS = Map.of("websocket.http.response", Map.of());

    private WebSocketScope() {
    }

    static Map<String, Object> of(RequestHead head, AsgiConfig config) {
        Map<String, Object> scope = Scope.http(head, config.app()).forwarded(head, config.app()).toMap();
        scope.put("type", "websocket");
        scope.remove("method");
        scope.put("scheme", "https".equals(scope.get("scheme")) ? "wss" : "ws");
        scope.put("subprotocols", subprotocols(head));
        Map<String, Object> tls = Scope.tlsExtension(head.tls());
        scope.put("extensions", tls == null ? EXTENSIONS : Map.of("websocket.http.response", Map.of(), "tls", tls));
        return scope;
    }

    /** Sec-WebSocket-Protocol values in order, each header a comma-separated list. */
    static List<String> subprotocols(RequestHead head) {
        List<String> offered = new ArrayList<>();
        for (String[] header : head.headers()) {
            if (header[0].equalsIgnoreCase("sec-websocket-protocol")) {
                for (String item : header[1].split(",")) {
                    if (!item.isBlank()) {
                        offered.add(item.strip());
                    }
                }
            }
        }
        return offered;
    }
}
