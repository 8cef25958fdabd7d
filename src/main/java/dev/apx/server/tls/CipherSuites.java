package dev.apx.server.tls;

import java.util.Map;

/**
 * IANA numbers of the cipher suites a TLS 1.2/1.3 server negotiates today, for the ASGI TLS
 * extension's {@code cipher_suite} (an int). The JDK and Netty's OpenSSL engine both report the
 * IANA name ({@code TLS_AES_128_GCM_SHA256}); an older name not in the table reports None.
 */
final class CipherSuites {
    private static final Map<String, Integer> CODES = Map.ofEntries(
            Map.entry("TLS_AES_128_GCM_SHA256", 0x1301),
            Map.entry("TLS_AES_256_GCM_SHA384", 0x1302),
            Map.entry("TLS_CHACHA20_POLY1305_SHA256", 0x1303),
            Map.entry("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 0xC02B),
            Map.entry("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", 0xC02C),
            Map.entry("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", 0xC02F),
            Map.entry("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", 0xC030),
            Map.entry("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", 0xCCA8),
            Map.entry("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", 0xCCA9),
            Map.entry("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", 0xC023),
            Map.entry("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", 0xC024),
            Map.entry("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", 0xC027),
            Map.entry("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", 0xC028),
            Map.entry("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", 0xC009),
            Map.entry("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", 0xC00A),
            Map.entry("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", 0xC013),
            Map.entry("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", 0xC014),
            Map.entry("TLS_RSA_WITH_AES_128_GCM_SHA256", 0x009C),
            Map.entry("TLS_RSA_WITH_AES_256_GCM_SHA384", 0x009D),
            Map.entry("TLS_RSA_WITH_AES_128_CBC_SHA", 0x002F),
            Map.entry("TLS_RSA_WITH_AES_256_CBC_SHA", 0x0035),
            Map.entry("TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", 0x009E),
            Map.entry("TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", 0x009F));

    private CipherSuites() {
    }

    /** The IANA number of {@code name}, or null when unknown. */
    static Integer code(String name) {
        return CODES.get(name);
    }

    /** The wire number of a protocol name ({@code TLSv1.3} is 0x0304), or null. */
    static Integer version(String protocol) {
        return switch (protocol) {
            case "TLSv1.3" -> 0x0304;
            case "TLSv1.2" -> 0x0303;
            case "TLSv1.1" -> 0x0302;
            case "TLSv1" -> 0x0301;
            default -> null;
        };
    }
}
