package dev.apx.server.api;

import java.util.Base64;

/**
 * The RFC 6455 opening-handshake check that apx's own server and {@code ApxServlet} share, so that
 * both refuse the same upgrade requests with the same words.
 */
public final class WebSocketHandshake {
    private WebSocketHandshake() {
    }

    /**
     * Why a request that asks for the WebSocket upgrade is not a valid opening handshake.
     *
     * @param method   the request's method
     * @param protocol its HTTP version, as in the request line ({@code HTTP/1.1})
     * @param key      its {@code Sec-WebSocket-Key} header, or null when it has none
     * @param version  its {@code Sec-WebSocket-Version} header, or null when it has none
     * @return the problem in a few words, or null when the handshake is valid; see {@link #isUnsupportedVersion}
     */
    public static String problem(String method, String protocol, String key, String version) {
        if (!method.equals("GET")) {
            return "method " + method + " (GET required)";
        }
        if (!protocol.equals("HTTP/1.1")) {
            return "HTTP version " + protocol + " (HTTP/1.1 required)";
        }
        if (key == null || key.isBlank()) {
            return "missing Sec-WebSocket-Key header";
        }
        if (!validKey(key.strip())) { // RFC 6455 4.2.1: base64 of 16 bytes
            return "Sec-WebSocket-Key is not the base64 of 16 bytes";
        }
        if (!"13".equals(version)) {
            return "unsupported Sec-WebSocket-Version " + version + " (13 required)";
        }
        return null;
    }

    /**
     * Whether {@code problem} is another protocol version, which is answered with 426 and
     * {@code Sec-WebSocket-Version: 13} rather than 400.
     *
     * @param problem what {@link #problem} returned, not null
     * @return true for an unsupported {@code Sec-WebSocket-Version}
     */
    public static boolean isUnsupportedVersion(String problem) {
        return problem.startsWith("unsupported");
    }

    private static boolean validKey(String key) {
        try {
            return key.length() == 24 && Base64.getDecoder().decode(key).length == 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
