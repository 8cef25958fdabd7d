package dev.apx.server.shared;

import dev.apx.config.Defaults;

/**
 * HTTP/2 settings and limits. Defaults, and the flag that sets each (docs/security.md has the reasoning):
 *
 * <pre>
 * enabled              true    --http [auto|1]          h2 through ALPN on TLS and with prior knowledge in cleartext; --http 1 turns it off
 * maxConcurrentStreams 100     --h2-max-concurrent-streams   SETTINGS_MAX_CONCURRENT_STREAMS; a stream past it is refused (RST_STREAM)
 * maxHeaderListSize    65536   --h2-max-header-list-size     SETTINGS_MAX_HEADER_LIST_SIZE, the decoded size (HPACK bombs stop here)
 * initialWindowSize    65535   --h2-initial-window-size      SETTINGS_INITIAL_WINDOW_SIZE: request body bytes a stream may send ahead of the app
 * maxFrameSize         16384   --h2-max-frame-size           SETTINGS_MAX_FRAME_SIZE
 * h2cUpgrade           false   --h2c-upgrade                 take up {@code Upgrade: h2c} on cleartext HTTP/1.1 (RFC 7540 3.2)
 * </pre>
 * {@code Upgrade: h2c} is off by default: the request is answered over HTTP/1.1, as the RFC allows.
 * A proxy that forwards the upgrade without understanding it hands the client a raw HTTP/2
 * connection to this server, past the proxy's own rules ("h2c smuggling").
 */
public record Http2Config(boolean enabled, int maxConcurrentStreams, int maxHeaderListSize,
                          int initialWindowSize, int maxFrameSize, boolean h2cUpgrade) {

    public Http2Config {
        if (maxConcurrentStreams < 1) {
            throw new IllegalArgumentException("--h2-max-concurrent-streams must be at least 1, got " + maxConcurrentStreams);
        }
        if (maxHeaderListSize < 1024) {
            throw new IllegalArgumentException("--h2-max-header-list-size must be at least 1024, got " + maxHeaderListSize);
        }
        if (initialWindowSize < 1) { // the protocol's own bound is 2^31-1, an int's
            throw new IllegalArgumentException("--h2-initial-window-size must be at least 1, got " + initialWindowSize);
        }
        if (maxFrameSize < 16384 || maxFrameSize > 16777215) {
            throw new IllegalArgumentException("--h2-max-frame-size must be between 16384 and 16777215 (RFC 9113), got " + maxFrameSize);
        }
        if (h2cUpgrade && !enabled) {
            throw new IllegalArgumentException("--h2c-upgrade conflicts with --http 1 (HTTP/1.1 only)");
        }
    }

    public static Http2Config defaults() {
        return new Http2Config(Defaults.HTTP2, Defaults.H2_MAX_CONCURRENT_STREAMS, Defaults.H2_MAX_HEADER_LIST_SIZE,
                Defaults.H2_INITIAL_WINDOW_SIZE, Defaults.H2_MAX_FRAME_SIZE, false);
    }

    public Http2Config withEnabled(boolean on) {
        return new Http2Config(on, maxConcurrentStreams, maxHeaderListSize, initialWindowSize, maxFrameSize, h2cUpgrade);
    }

    public Http2Config withH2cUpgrade(boolean on) {
        return new Http2Config(enabled, maxConcurrentStreams, maxHeaderListSize, initialWindowSize, maxFrameSize, on);
    }
}
