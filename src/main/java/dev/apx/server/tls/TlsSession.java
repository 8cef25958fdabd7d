package dev.apx.server.tls;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * What the ASGI TLS extension tells the app about a connection, read once after its handshake.
 * Field meanings as the ASGI spec's {@code extensions["tls"]}: PEM certificates, the client's
 * distinguished name (RFC 4514), the protocol's and cipher suite's wire numbers (None when unknown).
 * {@code clientCertError} is always null: a client certificate that fails verification fails the
 * handshake, as with Python's ssl.
 */
public record TlsSession(String serverCert, List<String> clientCertChain, String clientCertName, String clientCertError,
                         Integer tlsVersion, Integer cipherSuite) {

    private static final AttributeKey<TlsSession> KEY = AttributeKey.valueOf("apx.tls");

    /** The TLS session of {@code channel} (or of a parent channel's), or null on plain TCP. */
    public static TlsSession of(Channel channel) {
        for (Channel c = channel; c != null; c = c.parent()) {
            TlsSession session = c.attr(KEY).get();
            if (session != null) {
                return session;
            }
        }
        return null;
    }

    /**
     * A session another server negotiated (a Servlet container's): its protocol name (or null),
     * cipher suite name (or null) and the client's certificates (or null); the server certificate is not known.
     */
    public static TlsSession of(String protocol, String cipherSuite, X509Certificate[] clientChain) {
        List<String> chain = new ArrayList<>();
        String name = null;
        if (clientChain != null && clientChain.length > 0) {
            for (X509Certificate certificate : clientChain) {
                chain.add(TlsContext.pem(certificate));
            }
            name = clientChain[0].getSubjectX500Principal().getName(X500Principal.RFC2253);
        }
        return new TlsSession(null, List.copyOf(chain), name, null, protocol == null ? null : CipherSuites.version(protocol),
                cipherSuite == null ? null : CipherSuites.code(cipherSuite));
    }

    static void remember(Channel channel, SSLSession session, TlsContext context) {
        List<String> chain = new ArrayList<>();
        String name = null;
        try {
            Certificate[] peer = session.getPeerCertificates();
            for (Certificate certificate : peer) {
                if (certificate instanceof X509Certificate x509) {
                    chain.add(TlsContext.pem(x509));
                }
            }
            if (peer.length > 0 && peer[0] instanceof X509Certificate first) {
                name = first.getSubjectX500Principal().getName(X500Principal.RFC2253);
            }
        } catch (SSLPeerUnverifiedException none) {
            // no client certificate
        }
        channel.attr(KEY).set(new TlsSession(context.serverCertificatePem(), List.copyOf(chain), name, null,
                CipherSuites.version(session.getProtocol()), CipherSuites.code(session.getCipherSuite())));
    }
}
