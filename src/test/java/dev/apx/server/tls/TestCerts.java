package dev.apx.server.tls;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.openssl.PKCS8Generator;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Date;

/**
 * Certificates made at test time (no files checked in, nothing expires): a CA, a server
 * certificate for 127.0.0.1 and localhost signed by it, a client certificate signed by it, written
 * as PEM in the forms users bring (PKCS#8, PKCS#1, encrypted, key inside the cert file).
 */
public final class TestCerts {
    public static final String PASSWORD = "s3cret";

    public final Path dir;
    public final Path caCert;
    public final Path serverCert;   // the server certificate, then the CA (a chain)
    public final Path serverKey;    // PKCS#8
    public final Path serverKeyPkcs1;
    public final Path serverKeyEncrypted;       // PKCS#8, AES-256-CBC, PASSWORD
    public final Path serverKeyLegacyEncrypted; // "Proc-Type: 4,ENCRYPTED" PKCS#1, PASSWORD
    public final Path serverCertAndKey;
    public final Path otherKey;     // matches no certificate here
    public final Path clientCert;
    public final Path clientKey;
    public final X509Certificate ca;
    public final X509Certificate server;
    public final X509Certificate client;
    private final KeyPair clientKeys;

    public TestCerts(Path dir) throws Exception {
        this.dir = dir;
        KeyPair caKeys = rsa();
        ca = sign(new X500Name("CN=apx test CA"), caKeys, new X500Name("CN=apx test CA"), caKeys, true, false);
        KeyPair serverKeys = rsa();
        server = sign(new X500Name("CN=localhost"), serverKeys, new X500Name("CN=apx test CA"), caKeys, false, true);
        clientKeys = rsa();
        client = sign(new X500Name("CN=client one,O=apx"), clientKeys, new X500Name("CN=apx test CA"), caKeys, false, false);

        caCert = write("ca.pem", pem(ca));
        serverCert = write("server.pem", pem(server) + pem(ca));
        serverKey = write("server-key.pem", pkcs8(serverKeys.getPrivate(), null));
        serverKeyPkcs1 = write("server-key-rsa.pem", pem(serverKeys.getPrivate()));
        serverKeyEncrypted = write("server-key-enc.pem", pkcs8(serverKeys.getPrivate(), PASSWORD));
        serverKeyLegacyEncrypted = write("server-key-legacy-enc.pem", legacyEncrypted(serverKeys.getPrivate()));
        serverCertAndKey = write("server-and-key.pem", pem(server) + pkcs8(serverKeys.getPrivate(), null));
        otherKey = write("other-key.pem", pkcs8(rsa().getPrivate(), null));
        clientCert = write("client.pem", pem(client));
        clientKey = write("client-key.pem", pkcs8(clientKeys.getPrivate(), null));
    }

    /** A JDK SSLContext that trusts the test CA, presenting the client certificate when {@code withClientCert}. */
    public SSLContext clientContext(boolean withClientCert) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (withClientCert) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("client", clientKeys.getPrivate(), new char[0], new X509Certificate[]{client, ca});
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    public static String pem(Object object) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(object);
        }
        return out.toString();
    }

    private static String pkcs8(PrivateKey key, String password) throws Exception {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(new JcaPKCS8Generator(key, password == null ? null
                    : new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
                    .setProvider(new org.bouncycastle.jce.provider.BouncyCastleProvider())
                    .setPassword(password.toCharArray()).build()));
        }
        return out.toString();
    }

    private static String legacyEncrypted(PrivateKey key) throws Exception {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(new JcaMiscPEMGenerator(key, new JcePEMEncryptorBuilder("AES-128-CBC")
                    .setProvider(new org.bouncycastle.jce.provider.BouncyCastleProvider()).build(PASSWORD.toCharArray())));
        }
        return out.toString();
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    private static KeyPair rsa() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    private static X509Certificate sign(X500Name subject, KeyPair keys, X500Name issuer, KeyPair issuerKeys, boolean isCa,
                                        boolean serverNames) throws Exception {
        long now = System.currentTimeMillis();
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(now ^ subject.hashCode()).abs(),
                new Date(now - 3_600_000L), new Date(now + 86_400_000L), subject, keys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
        // Key identifiers and the CA's key usage, as a real CA's certificates have: Python 3.13+ verifies
        // with VERIFY_X509_STRICT, which rejects a chain without them ("Missing Authority Key Identifier").
        org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils ids = new org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils();
        builder.addExtension(Extension.subjectKeyIdentifier, false, ids.createSubjectKeyIdentifier(keys.getPublic()));
        builder.addExtension(Extension.authorityKeyIdentifier, false, ids.createAuthorityKeyIdentifier(
                issuerKeys.getPublic()));
        if (isCa) {
            builder.addExtension(Extension.keyUsage, true, new org.bouncycastle.asn1.x509.KeyUsage(
                    org.bouncycastle.asn1.x509.KeyUsage.keyCertSign | org.bouncycastle.asn1.x509.KeyUsage.cRLSign));
        }
        if (serverNames) {
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[]{
                    new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
        }
        X509CertificateHolder holder = builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(issuerKeys.getPrivate()));
        return new JcaX509CertificateConverter().getCertificate(holder);
    }
}
