package dev.apx.cli;

import dev.apx.config.ApxConfig;
import dev.apx.config.Defaults;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;

/** Uvicorn's TLS flags and apx's HTTP/2 flags, mixed into {@link Main}; {@link #apply} maps them (the TLS files are loaded when the server starts). */
final class ProtocolOptions {
    /** Uvicorn's --http names: its HTTP/1.1 implementations mean HTTP/1.1 only; zttp (its HTTP/2 one) means auto. */
    private static final List<String> HTTP = List.of("auto", "1", "h11", "httptools", "zttp");

    @Option(names = "--ssl-keyfile", paramLabel = "PATH", descriptionKey = "tls.keyFile")
    Path keyFile;

    @Option(names = "--ssl-certfile", paramLabel = "PATH", descriptionKey = "tls.certFile")
    Path certFile;

    @Option(names = "--ssl-keyfile-password", paramLabel = "PASSWORD", descriptionKey = "tls.keyFilePassword")
    String keyPassword;

    @Option(names = "--ssl-version", paramLabel = "N", defaultValue = "" + Defaults.SSL_VERSION, descriptionKey = "tls.version")
    int version;

    @Option(names = "--ssl-cert-reqs", paramLabel = "N", defaultValue = "" + Defaults.SSL_CERT_REQS, descriptionKey = "tls.certReqs")
    int certReqs;

    @Option(names = "--ssl-ca-certs", paramLabel = "PATH", descriptionKey = "tls.caCerts")
    Path caCerts;

    @Option(names = "--ssl-ciphers", paramLabel = "LIST", descriptionKey = "tls.ciphers")
    String ciphers;

    @Option(names = "--ssl-engine", paramLabel = "[auto|openssl|jdk]", defaultValue = Defaults.SSL_ENGINE, descriptionKey = "tls.engine")
    String engine;

    @Option(names = "--http", paramLabel = "[auto|1|h11|httptools|zttp]", defaultValue = "auto",
            description = {"auto: HTTP/1.1 and 2; 1, h11, httptools: 1.1.",
                    "auto serves HTTP/1.1 and HTTP/2: HTTP/2 through ALPN on TLS, and with prior knowledge in cleartext."}, descriptionKey = "http.http2")
    String http;

    @Option(names = "--http2", description = {"Uvicorn's flag; apx serves HTTP/2 by default.",
                    "Accepted for Uvicorn's command lines; it conflicts with an HTTP/1.1-only --http."}, descriptionKey = "http.http2")
    boolean http2;

    @Option(names = "--h2-max-concurrent-streams", paramLabel = "N", defaultValue = "" + Defaults.H2_MAX_CONCURRENT_STREAMS, descriptionKey = "http.h2MaxConcurrentStreams")
    int maxConcurrentStreams;

    @Option(names = "--h2-max-header-list-size", paramLabel = "BYTES", defaultValue = "" + Defaults.H2_MAX_HEADER_LIST_SIZE, descriptionKey = "http.h2MaxHeaderListSize")
    int maxHeaderListSize;

    @Option(names = "--h2-initial-window-size", paramLabel = "BYTES", defaultValue = "" + Defaults.H2_INITIAL_WINDOW_SIZE, descriptionKey = "http.h2InitialWindowSize")
    int initialWindowSize;

    @Option(names = "--h2-max-frame-size", paramLabel = "BYTES", defaultValue = "" + Defaults.H2_MAX_FRAME_SIZE, descriptionKey = "http.h2MaxFrameSize")
    int maxFrameSize;

    @Option(names = "--h2c-upgrade", descriptionKey = "http.h2cUpgrade")
    boolean h2cUpgrade;

    /** Sets HTTP and TLS on {@code config}; a bad --http, or a flag that conflicts with it, fails here. */
    void apply(ApxConfig.Builder config) {
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
        config.http(settings -> settings.http2(h2).h2cUpgrade(h2cUpgrade).h2MaxConcurrentStreams(maxConcurrentStreams)
                .h2MaxHeaderListSize(maxHeaderListSize).h2InitialWindowSize(initialWindowSize).h2MaxFrameSize(maxFrameSize));
        config.tls(settings -> settings.certFile(certFile).keyFile(keyFile).keyFilePassword(keyPassword).version(version).certReqs(certReqs)
                .caCerts(caCerts).ciphers(ciphers).engine(engine));
    }
}
