package dev.apx.server.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link PemFiles} without BouncyCastle, on the JDK alone: {@code CERTIFICATE} blocks and an
 * unencrypted PKCS#8 {@code PRIVATE KEY} (RSA, EC, Ed25519/Ed448, RSASSA-PSS). The key forms only
 * BouncyCastle reads (PKCS#1, SEC1, encrypted) get a message that names the dependency to add and
 * the conversion that avoids it.
 */
final class JdkPem {
    static final String BOUNCY_CASTLE = "org.bouncycastle:bcpkix-jdk18on";
    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "EdDSA", "RSASSA-PSS", "DSA");

    private JdkPem() {
    }

    private record Block(String label, String body) {
    }

    static List<X509Certificate> certificates(String flag, Path file) {
        List<X509Certificate> chain = new ArrayList<>();
        for (Block block : blocks(flag, file)) {
            if (block.label().equals("CERTIFICATE")) {
                try {
                    chain.add((X509Certificate) CertificateFactory.getInstance("X.509")
                            .generateCertificate(new ByteArrayInputStream(der(flag, file, block))));
                } catch (GeneralSecurityException e) {
                    throw new IllegalArgumentException(flag + " " + file + ": unreadable certificate: " + e.getMessage(), e);
                }
            }
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException(flag + " " + file + ": no PEM certificate (-----BEGIN CERTIFICATE-----) in it");
        }
        return chain;
    }

    /** {@code password} is not used: an encrypted key needs BouncyCastle. */
    static PrivateKey privateKey(String flag, Path file, String password) {
        for (Block block : blocks(flag, file)) {
            if (block.label().equals("PRIVATE KEY")) {
                return pkcs8(flag, file, der(flag, file, block));
            }
            if (block.label().contains("PRIVATE KEY")) { // PKCS#1, SEC1, encrypted
                throw new IllegalArgumentException(flag + " " + file + ": this key ('" + block.label() + "') needs BouncyCastle ("
                        + BOUNCY_CASTLE + ") on the class path; without it apx reads unencrypted PKCS#8 keys ('PRIVATE KEY') only."
                        + " Convert it with `openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pkcs8.pem`, or add the dependency");
            }
        }
        throw new IllegalArgumentException(flag + " " + file + ": no PEM private key (-----BEGIN ... PRIVATE KEY-----) in it");
    }

    private static PrivateKey pkcs8(String flag, Path file, byte[] der) {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException | IllegalArgumentException notThisOne) {
                // the next algorithm
            }
        }
        throw new IllegalArgumentException(flag + " " + file + ": a PKCS#8 private key of an algorithm the JDK cannot read");
    }

    private static byte[] der(String flag, Path file, Block block) {
        try {
            return Base64.getMimeDecoder().decode(block.body());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + " " + file + ": not a readable PEM file (" + e.getMessage() + ")", e);
        }
    }

    private static List<Block> blocks(String flag, Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalArgumentException(flag + " " + file + ": no such file");
        } catch (IOException e) {
            throw new IllegalArgumentException(flag + " " + file + ": not a readable PEM file (" + e.getMessage() + ")", e);
        }
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(text);
        while (matcher.find()) {
            String body = matcher.group(2);
            // OpenSSL's legacy encryption headers (Proc-Type, DEK-Info): only BouncyCastle reads these
            blocks.add(new Block(body.contains("Proc-Type:") ? matcher.group(1) + ", encrypted" : matcher.group(1), body));
        }
        return blocks;
    }
}
