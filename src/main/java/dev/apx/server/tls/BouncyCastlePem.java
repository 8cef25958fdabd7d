package dev.apx.server.tls;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8DecryptorProviderBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMDecryptorProviderBuilder;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link PemFiles} with BouncyCastle (an optional dependency): certificates in order (the server's
 * first), a private key in PKCS#8, PKCS#1 ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY})
 * form, plain or encrypted with a password, as Python's {@code ssl.load_cert_chain} takes them.
 * Every problem is an {@link IllegalArgumentException} naming the flag and file.
 */
final class BouncyCastlePem {
    /** For the ciphers of encrypted keys (AES/CBC/PKCS7Padding...); not registered JVM-wide. */
    private static final java.security.Provider BC = new org.bouncycastle.jce.provider.BouncyCastleProvider();

    private BouncyCastlePem() {
    }

    static List<X509Certificate> certificates(String flag, Path file) {
        List<X509Certificate> chain = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        for (Object item : objects(flag, file)) {
            if (item instanceof X509CertificateHolder holder) {
                try {
                    chain.add(converter.getCertificate(holder));
                } catch (CertificateException e) {
                    throw new IllegalArgumentException(flag + " " + file + ": unreadable certificate: " + e.getMessage(), e);
                }
            }
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException(flag + " " + file + ": no PEM certificate (-----BEGIN CERTIFICATE-----) in it");
        }
        return chain;
    }

    static PrivateKey privateKey(String flag, Path file, String password) {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        for (Object item : objects(flag, file)) {
            try {
                switch (item) {
                    case PrivateKeyInfo info -> {
                        return converter.getPrivateKey(info);
                    }
                    case PEMKeyPair pair -> {
                        return converter.getKeyPair(pair).getPrivate();
                    }
                    case PEMEncryptedKeyPair encrypted -> {
                        char[] secret = needPassword(flag, file, password);
                        return converter.getKeyPair(encrypted.decryptKeyPair(new JcePEMDecryptorProviderBuilder().setProvider(BC).build(secret))).getPrivate();
                    }
                    case PKCS8EncryptedPrivateKeyInfo encrypted -> {
                        char[] secret = needPassword(flag, file, password);
                        return converter.getPrivateKey(encrypted.decryptPrivateKeyInfo(
                                new JceOpenSSLPKCS8DecryptorProviderBuilder().setProvider(BC).build(secret)));
                    }
                    default -> {
                        // certificates and parameters beside the key
                    }
                }
            } catch (IllegalArgumentException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalArgumentException(flag + " " + file + ": cannot decrypt the private key (wrong --ssl-keyfile-password?)", e);
            }
        }
        throw new IllegalArgumentException(flag + " " + file + ": no PEM private key (-----BEGIN ... PRIVATE KEY-----) in it");
    }

    private static char[] needPassword(String flag, Path file, String password) {
        if (password == null) {
            throw new IllegalArgumentException(flag + " " + file + ": the private key is encrypted; give its password with --ssl-keyfile-password");
        }
        return password.toCharArray();
    }

    private static List<Object> objects(String flag, Path file) {
        List<Object> items = new ArrayList<>();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser parser = new PEMParser(reader)) {
            for (Object item = parser.readObject(); item != null; item = parser.readObject()) {
                items.add(item);
            }
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalArgumentException(flag + " " + file + ": no such file");
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(flag + " " + file + ": not a readable PEM file (" + e.getMessage() + ")", e);
        }
        return items;
    }
}
