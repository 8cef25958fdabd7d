package dev.apx.cli;

import dev.apx.server.api.WebSocketConfig;

import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;

/** Uvicorn's WebSocket flags, mixed into {@link Main}; {@link #config} checks them. */
final class WebSocketOptions {
    /** Uvicorn's implementation names; apx has one implementation (Netty), so all but none mean on. */
    private static final List<String> KINDS = List.of("auto", "none", "websockets", "websockets-sansio", "wsproto");

    @Option(names = "--ws", defaultValue = "auto", paramLabel = "[auto|none|websockets|websockets-sansio|wsproto]",
            description = "WebSocket support (none: off).")
    String ws;

    @Option(names = "--ws-max-size", defaultValue = "16777216", paramLabel = "BYTES",
            description = {"Largest message, in bytes.",
                    "A larger one closes the WebSocket with 1009."})
    int maxSize;

    @Option(names = "--ws-ping-interval", defaultValue = "20.0", paramLabel = "SECONDS",
            description = "Seconds between pings (0: none).")
    double pingInterval;

    @Option(names = "--ws-ping-timeout", defaultValue = "20.0", paramLabel = "SECONDS",
            description = {"Pong deadline (0: none).",
                    "A WebSocket whose pong is later closes with 1011."})
    double pingTimeout;

    @Option(names = "--ws-per-message-deflate", arity = "0..1", defaultValue = "true", fallbackValue = "true", paramLabel = "BOOLEAN",
            description = "Compress messages (permessage-deflate).")
    boolean perMessageDeflate;

    @Option(names = "--ws-max-queue", defaultValue = "32", paramLabel = "N",
            description = {"Messages that may await the app.",
                    "Beyond it apx stops reading the socket until the app catches up."})
    int maxQueue;

    WebSocketConfig config() {
        if (!KINDS.contains(ws)) {
            throw new BadFlag("invalid value for --ws: '" + ws + "' (choose from " + KINDS + ")");
        }
        if (maxQueue <= 0) {
            throw new BadFlag("--ws-max-queue must be at least 1, got " + maxQueue);
        }
        if (maxSize <= 0) {
            throw new BadFlag("--ws-max-size must be a positive number of bytes, got " + maxSize);
        }
        return new WebSocketConfig(!ws.equals("none"), maxSize, seconds("--ws-ping-interval", pingInterval),
                seconds("--ws-ping-timeout", pingTimeout), perMessageDeflate, maxQueue);
    }

    private static Duration seconds(String option, double value) {
        if (!(value >= 0) || value > 1e9) {
            throw new BadFlag(option + " must be a number of seconds >= 0, got " + value);
        }
        return Duration.ofNanos((long) (value * 1e9));
    }
}
