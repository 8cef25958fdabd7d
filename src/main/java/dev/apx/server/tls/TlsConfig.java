package dev.apx.server.tls;

import java.nio.file.Path;

/**
 * Uvicorn's {@code --ssl-*} flags as given (checked and loaded by {@link TlsContext#load}).
 *
 * @param certFile   PEM: the server certificate, then its chain; may also hold the key
 * @param keyFile    PEM private key (PKCS#8, PKCS#1 or SEC1, encrypted or not), or null: the key is in {@code certFile}
 * @param password   the key's password, or null
 * @param caCerts    PEM CA certificates that client certificates must chain to, or null
 * @param certReqs   client certificates: 0 none, 1 optional, 2 required (Python's ssl.CERT_*)
 * @param ciphers    cipher suites, ':'-separated (IANA/Java or OpenSSL names), or null: the engine's safe default
 * @param version    Python's ssl.PROTOCOL_* number: 2 or 17 (TLS 1.2 and 1.3, the default), 5 (TLS 1.2 only)
 * @param engine     auto (BoringSSL where it loads, else the JDK), openssl or jdk
 */
public record TlsConfig(Path certFile, Path keyFile, String password, Path caCerts, int certReqs, String ciphers,
                        int version, String engine) {
    /** Python's ssl.PROTOCOL_TLS_SERVER, Uvicorn's default --ssl-version. */
    public static final int PROTOCOL_TLS_SERVER = 17;
}
