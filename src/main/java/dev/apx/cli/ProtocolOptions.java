package dev.apx.cli;

import dev.apx.server.shared.Http2Config;
import dev.apx.server.shared.Protocols;
import dev.apx.server.tls.TlsConfig;
import dev.apx.server.tls.TlsContext;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;

/** Uvicorn's TLS flags and apx's HTTP/2 flags, mixed into {@link Main}; {@link #protocols} checks and loads them. */
final class ProtocolOptions {
    /** Uvicorn's --http names: its HTTP/1.1 implementations mean HTTP/1.1 only; zttp (its HTTP/2 one) means auto. */
    private static final List<String> HTTP = List.of("auto", "1", "h11", "httptools", "zttp");

    @Option(names = "--ssl-keyfile", paramLabel = "PATH", description = {"TLS private key (PEM, may be encrypted).",
                    "PKCS#8, PKCS#1 or SEC1."})
    Path keyFile;

    @Option(names = "--ssl-certfile", paramLabel = "PATH",
            description = "TLS certificate (PEM) and chain: serve HTTPS.")
    Path certFile;

    @Option(names = "--ssl-keyfile-password", paramLabel = "PASSWORD", description = "Password of an encrypted --ssl-keyfile.")
    String keyPassword;

    @Option(names = "--ssl-version", paramLabel = "N", defaultValue = "17",
            description = {"Python's ssl.PROTOCOL_* number.",
                    "17 or 2: TLS 1.2 and 1.3; 5: TLS 1.2 only."})
    int version;

    @Option(names = "--ssl-cert-reqs", paramLabel = "N", defaultValue = "0",
            description = {"Ask for client certificates: 0-2.",
                    "0: none, 1: optional, 2: required (needs --ssl-ca-certs)."})
    int certReqs;

    @Option(names = "--ssl-ca-certs", paramLabel = "PATH", description = "CA certificates (PEM) for client certificates.")
    Path caCerts;

    @Option(names = "--ssl-ciphers", paramLabel = "LIST",
            description = "Cipher suites, ':'-separated.")
    String ciphers;

    @Option(names = "--ssl-engine", paramLabel = "[auto|openssl|jdk]", defaultValue = "auto",
            description = {"TLS engine.",
                    "auto uses BoringSSL (netty-tcnative) where it loads, else the JDK's TLS."})
    String engine;

    @Option(names = "--http", paramLabel = "[auto|1|h11|httptools|zttp]", defaultValue = "auto",
            description = {"auto: HTTP/1.1 and 2; 1, h11, httptools: 1.1.",
                    "auto serves HTTP/1.1 and HTTP/2: HTTP/2 through ALPN on TLS, and with prior knowledge in cleartext."})
    String http;

    @Option(names = "--http2", description = {"Uvicorn's flag; apx serves HTTP/2 by default.",
                    "Accepted for Uvicorn's command lines; it conflicts with an HTTP/1.1-only --http."})
    boolean http2;

    @Option(names = "--h2-max-concurrent-streams", paramLabel = "N", defaultValue = "100",
            description = {"HTTP/2 streams open at once.",
                    "Per connection; one more is refused."})
    int maxConcurrentStreams;

    @Option(names = "--h2-max-header-list-size", paramLabel = "BYTES", defaultValue = "65536",
            description = {"Largest HTTP/2 header block.",
                    "Decoded size of a request's header block; a larger one ends the connection."})
    int maxHeaderListSize;

    @Option(names = "--h2-initial-window-size", paramLabel = "BYTES", defaultValue = "65535",
            description = {"HTTP/2 stream's flow window.",
                    "Request body bytes a stream may send before the app reads them."})
    int initialWindowSize;

    @Option(names = "--h2-max-frame-size", paramLabel = "BYTES", defaultValue = "16384",
            description = "Largest HTTP/2 frame a client may send.")
    int maxFrameSize;

    @Option(names = "--h2c-upgrade", description = {"Take up 'Upgrade: h2c' (off: h2c smuggling).",
                    "Off by default: a proxy that forwards the upgrade without understanding it lets clients smuggle "
                    + "HTTP/2 requests past it. h2c with prior knowledge needs no flag."})
    boolean h2cUpgrade;

    /** Loads the TLS files (an error here is the startup error, before anything listens). */
    Protocols protocols() {
        if (!HTTP.contains(http)) {
            throw new BadFlag("invalid value for --http: '" + http + "' (choose from " + HTTP + ")");
        }
        boolean h2 = !(http.equals("1") || http.equals("h11") || http.equals("httptools"));
        if (http2 && !h2) {
            throw new BadFlag("--http2 conflicts with --http " + http + " (HTTP/1.1 only)");
        }
        if (h2cUpgrade && !h2) {
            throw new BadFlag("--h2c-upgrade conflicts with --http " + http + " (HTTP/1.1 only)");
        }
        Http2Config config;
        try {
            config = new Http2Config(h2, maxConcurrentStreams, maxHeaderListSize, initialWindowSize, maxFrameSize, h2cUpgrade);
        } catch (IllegalArgumentException e) {
            throw new BadFlag(e.getMessage()); // it names the flag
        }
        TlsContext tls = null;
        if (certFile != null || keyFile != null) {
            tls = TlsContext.load(new TlsConfig(certFile, keyFile, keyPassword, caCerts, certReqs, ciphers, version, engine), h2);
        }
        return new Protocols(tls, config);
    }
}
