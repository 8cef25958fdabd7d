package dev.apx.cli;

import dev.apx.config.Defaults;
import dev.apx.config.WebSocketSettings;
import dev.apx.serve.ServeConfigs;
import dev.apx.server.api.WebSocketConfig;

import picocli.CommandLine.Option;

import java.util.List;

/** Uvicorn's WebSocket flags, mixed into {@link Main}; {@link #settings} maps and checks them. */
final class WebSocketOptions {
    /** Uvicorn's implementation names; apx has one implementation (Netty), so all but none mean on. */
    private static final List<String> KINDS = List.of("auto", "none", "websockets", "websockets-sansio", "wsproto");

    @Option(names = "--ws", defaultValue = "auto", paramLabel = "[auto|none|websockets|websockets-sansio|wsproto]",
            description = "WebSocket support (none: off).", descriptionKey = "webSockets.enabled")
    String ws;

    @Option(names = "--ws-max-size", defaultValue = "" + Defaults.WS_MAX_SIZE, paramLabel = "BYTES", descriptionKey = "webSockets.maxSize")
    int maxSize;

    @Option(names = "--ws-ping-interval", defaultValue = "" + Defaults.WS_PING_INTERVAL, paramLabel = "SECONDS", descriptionKey = "webSockets.pingInterval")
    double pingInterval;

    @Option(names = "--ws-ping-timeout", defaultValue = "" + Defaults.WS_PING_TIMEOUT, paramLabel = "SECONDS", descriptionKey = "webSockets.pingTimeout")
    double pingTimeout;

    @Option(names = "--ws-per-message-deflate", arity = "0..1", defaultValue = "" + Defaults.WS_PER_MESSAGE_DEFLATE, fallbackValue = "true", paramLabel = "BOOLEAN", descriptionKey = "webSockets.perMessageDeflate")
    boolean perMessageDeflate;

    @Option(names = "--ws-max-queue", defaultValue = "" + Defaults.WS_MAX_QUEUE, paramLabel = "N", descriptionKey = "webSockets.maxQueue")
    int maxQueue;

    WebSocketSettings settings() {
        if (!KINDS.contains(ws)) {
            throw new BadFlag("invalid value for --ws: '" + ws + "' (choose from " + KINDS + ")");
        }
        return ConfigMapper.checked(() -> WebSocketSettings.builder().enabled(!ws.equals("none")).maxSize(maxSize).maxQueue(maxQueue)
                .pingInterval(pingInterval).pingTimeout(pingTimeout).perMessageDeflate(perMessageDeflate).build());
    }

    /** What the server takes; bad values fail here with the flag's name. */
    WebSocketConfig config() {
        return ServeConfigs.webSockets(settings());
    }
}
