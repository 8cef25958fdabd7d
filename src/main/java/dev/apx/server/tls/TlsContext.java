package dev.apx.server.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.SSLException;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The server's TLS: one Netty {@link SslContext} made from {@link TlsConfig} at startup, before
 * the port opens, so a bad file, a wrong password or a key that does not match the certificate is
 * one error line. The engine is BoringSSL (netty-tcnative) where it loads, else the JDK's
 * SSLEngine; {@link #engineName} says which, for the startup log. Thread-safe once built.
 */
public final class TlsContext {
    private final SslContext context;
    private final String engineName;
    private final String serverCertificatePem;

    private TlsContext(SslContext context, String engineName, String serverCertificatePem) {
        this.context = context;
        this.engineName = engineName;
        this.serverCertificatePem = serverCertificatePem;
    }

    /** Loads and checks everything; {@code http2} offers h2 before http/1.1 in ALPN. */
    public static TlsContext load(TlsConfig config, boolean http2) {
        if (config.certFile() == null) {
            throw new IllegalArgumentException("--ssl-keyfile needs --ssl-certfile (the certificate to serve)");
        }
        List<X509Certificate> chain = PemFiles.certificates("--ssl-certfile", config.certFile());
        PrivateKey key = config.keyFile() != null
                ? PemFiles.privateKey("--ssl-keyfile", config.keyFile(), config.password())
                : PemFiles.privateKey("--ssl-certfile", config.certFile(), config.password());
        if (!PemFiles.matches(key, chain.getFirst())) {
            throw new IllegalArgumentException("the private key " + (config.keyFile() != null ? config.keyFile() : config.certFile())
                    + " does not match the certificate " + config.certFile());
        }
        SslProvider provider = provider(config.engine());
        SslContextBuilder builder = SslContextBuilder.forServer(key, chain).sslProvider(provider)
                .protocols(protocols(config.version()))
                .clientAuth(clientAuth(config.certReqs()));
        if (config.caCerts() != null) {
            builder.trustManager(PemFiles.certificates("--ssl-ca-certs", config.caCerts()));
        } else if (config.certReqs() != 0) {
            throw new IllegalArgumentException("--ssl-cert-reqs " + config.certReqs() + " needs --ssl-ca-certs (the CAs that sign client certificates)");
        }
        if (config.ciphers() != null && !config.ciphers().isBlank()) {
            builder.ciphers(List.of(config.ciphers().split("[:,]")));
        }
        List<String> alpn = new ArrayList<>();
        if (http2) {
            alpn.add(ApplicationProtocolNames.HTTP_2);
        }
        alpn.add(ApplicationProtocolNames.HTTP_1_1);
        builder.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn));
        SslContext context;
        try {
            context = builder.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot set up TLS: " + e.getMessage(), e);
        }
        String name = provider == SslProvider.OPENSSL ? OpenSsl.versionString() + " (netty-tcnative)" : "the JDK's SSLEngine";
        return new TlsContext(context, name, pem(chain.getFirst()));
    }

    private static SslProvider provider(String engine) {
        boolean openSsl = OpenSsl.isAvailable() && SslProvider.isAlpnSupported(SslProvider.OPENSSL);
        return switch (engine) {
            case "auto" -> openSsl ? SslProvider.OPENSSL : SslProvider.JDK;
            case "jdk" -> SslProvider.JDK;
            case "openssl" -> {
                if (!openSsl) {
                    throw new IllegalArgumentException("--ssl-engine openssl: BoringSSL (netty-tcnative) does not load here: "
                            + OpenSsl.unavailabilityCause() + " (as a library, apx needs io.netty:netty-tcnative-boringssl-static"
                            + " with this platform's classifier on the class path; --ssl-engine auto uses the JDK's engine without it)");
                }
                yield SslProvider.OPENSSL;
            }
            default -> throw new IllegalArgumentException("invalid value for --ssl-engine: '" + engine + "' (choose from auto, openssl, jdk)");
        };
    }

    private static String[] protocols(int version) {
        return switch (version) {
            case 2, TlsConfig.PROTOCOL_TLS_SERVER -> new String[]{"TLSv1.3", "TLSv1.2"};
            case 5 -> new String[]{"TLSv1.2"};
            case 3, 4 -> throw new IllegalArgumentException("--ssl-version " + version + " (TLS 1.0/1.1) is not supported: they are insecure and disabled");
            default -> throw new IllegalArgumentException("--ssl-version " + version + " is not a server protocol: use 17 (ssl.PROTOCOL_TLS_SERVER, TLS 1.2 and 1.3), 2 or 5 (TLS 1.2 only)");
        };
    }

    private static ClientAuth clientAuth(int certReqs) {
        return switch (certReqs) {
            case 0 -> ClientAuth.NONE;
            case 1 -> ClientAuth.OPTIONAL;
            case 2 -> ClientAuth.REQUIRE;
            default -> throw new IllegalArgumentException("--ssl-cert-reqs must be 0 (none), 1 (optional) or 2 (required), got " + certReqs);
        };
    }

    static String pem(X509Certificate certificate) {
        try {
            return "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(certificate.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A new engine for one connection. */
    public SslHandler newHandler(ByteBufAllocator allocator) {
        return context.newHandler(allocator);
    }

    /** The engine's provider, for a client of this server in the same VM (the start-up warm-up). */
    public SslProvider provider() {
        return context instanceof io.netty.handler.ssl.OpenSslContext ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /** "BoringSSL (netty-tcnative)" or "the JDK's SSLEngine". */
    public String engineName() {
        return engineName;
    }

    String serverCertificatePem() {
        return serverCertificatePem;
    }
}
