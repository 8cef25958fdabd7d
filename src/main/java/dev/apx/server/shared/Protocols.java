package dev.apx.server.shared;

import dev.apx.server.tls.TlsContext;

/**
 * Which protocols a connection may speak: TLS when {@code tls} is set (ALPN picks h2 or
 * HTTP/1.1), and HTTP/2's settings (on TLS through ALPN, in cleartext with prior knowledge).
 */
public record Protocols(TlsContext tls, Http2Config http2) {

    /** Cleartext, HTTP/1.1 and HTTP/2 with prior knowledge, default HTTP/2 settings. */
    public static Protocols defaults() {
        return new Protocols(null, Http2Config.defaults());
    }
}
