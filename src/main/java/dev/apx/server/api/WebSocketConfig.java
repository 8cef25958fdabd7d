package dev.apx.server.api;

import dev.apx.config.Defaults;

import java.time.Duration;

/**
 * WebSocket settings, with Uvicorn's defaults.
 *
 * @param enabled           false for {@code --ws none}: upgrade requests go to the app as plain HTTP
 * @param maxSize           a message (after reassembly and inflation) above this many bytes closes with 1009
 * @param pingInterval      the server pings this often (zero: never)
 * @param pingTimeout       no pong within this closes with 1011 (zero: wait forever)
 * @param perMessageDeflate offer permessage-deflate (RFC 7692) when the client asks for it
 * @param maxQueue          received messages the app has not taken yet before reading pauses ({@code --ws-max-queue})
 */
public record WebSocketConfig(boolean enabled, int maxSize, Duration pingInterval, Duration pingTimeout,
                              boolean perMessageDeflate, int maxQueue) {
    public static final int DEFAULT_MAX_QUEUE = Defaults.WS_MAX_QUEUE;

    public WebSocketConfig(boolean enabled, int maxSize, Duration pingInterval, Duration pingTimeout, boolean perMessageDeflate) {
        this(enabled, maxSize, pingInterval, pingTimeout, perMessageDeflate, DEFAULT_MAX_QUEUE);
    }

    public static WebSocketConfig defaults() {
        return new WebSocketConfig(Defaults.WS, Defaults.WS_MAX_SIZE, seconds(Defaults.WS_PING_INTERVAL), seconds(Defaults.WS_PING_TIMEOUT),
                Defaults.WS_PER_MESSAGE_DEFLATE);
    }

    private static Duration seconds(double value) {
        return Duration.ofNanos((long) (value * 1e9));
    }

    public static WebSocketConfig disabled() {
        return new WebSocketConfig(false, Defaults.WS_MAX_SIZE, Duration.ZERO, Duration.ZERO, false);
    }
}
