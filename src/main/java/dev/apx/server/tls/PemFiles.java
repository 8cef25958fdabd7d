package dev.apx.server.tls;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * PEM files as Python's {@code ssl.load_cert_chain} takes them: with BouncyCastle on the class path
 * ({@link BouncyCastlePem}) every key form Python reads; without it (a host that left out that
 * optional dependency) the JDK's reader ({@link JdkPem}): certificates and unencrypted PKCS#8 keys,
 * and a message that names the dependency for the other forms. Every problem is an
 * {@link IllegalArgumentException} naming the flag and file.
 */
final class PemFiles {
    static final boolean BOUNCY_CASTLE = present("org.bouncycastle.openssl.PEMParser") && present("org.bouncycastle.jce.provider.BouncyCastleProvider");

    private PemFiles() {
    }

    private static boolean present(String name) {
        try {
            Class.forName(name, false, PemFiles.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    static List<X509Certificate> certificates(String flag, Path file) {
        return BOUNCY_CASTLE ? BouncyCastlePem.certificates(flag, file) : JdkPem.certificates(flag, file);
    }

    static PrivateKey privateKey(String flag, Path file, String password) {
        return BOUNCY_CASTLE ? BouncyCastlePem.privateKey(flag, file, password) : JdkPem.privateKey(flag, file, password);
    }

    /** Whether {@code key} is the private half of {@code certificate}'s public key: one signature made and checked. */
    static boolean matches(PrivateKey key, X509Certificate certificate) {
        PublicKey publicKey = certificate.getPublicKey();
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "RSASSA-PSS" -> "RSASSA-PSS";
            default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        try {
            byte[] probe = "apx key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            if (algorithm.equals("RSASSA-PSS")) {
                signer.setParameter(new java.security.spec.PSSParameterSpec("SHA-256", "MGF1",
                        java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
            }
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            if (algorithm.equals("RSASSA-PSS")) {
                verifier.setParameter(new java.security.spec.PSSParameterSpec("SHA-256", "MGF1",
                        java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
            }
            verifier.initVerify(publicKey);
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (java.security.GeneralSecurityException e) {
            return false; // e.g. an EC key against an RSA certificate
        }
    }

}
