package dev.apx.server.tls;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The PEM reader a host gets without BouncyCastle: PKCS#8 and certificates read, the other key forms refused with what to do. */
class JdkPemTest {
    private static TestCerts certs;

    @BeforeAll
    static void makeCerts() throws Exception {
        certs = new TestCerts(Files.createTempDirectory("apx-jdkpem"));
    }

    @Test
    void readsTheChainAndAPkcs8KeyAsBouncyCastleDoes() {
        List<X509Certificate> chain = JdkPem.certificates("--ssl-certfile", certs.serverCert);
        assertThat(chain).containsExactlyElementsOf(BouncyCastlePem.certificates("--ssl-certfile", certs.serverCert));
        assertThat(chain).containsExactly(certs.server, certs.ca);
        PrivateKey key = JdkPem.privateKey("--ssl-keyfile", certs.serverKey, null);
        assertThat(key.getEncoded()).isEqualTo(BouncyCastlePem.privateKey("--ssl-keyfile", certs.serverKey, null).getEncoded());
        assertThat(PemFiles.matches(key, chain.getFirst())).isTrue();
        assertThat(PemFiles.matches(JdkPem.privateKey("--ssl-certfile", certs.serverCertAndKey, null), certs.server)).isTrue();
    }

    @Test
    void theFormsOnlyBouncyCastleReadsNameTheDependencyAndTheConversion() {
        for (Path file : List.of(certs.serverKeyPkcs1, certs.serverKeyEncrypted, certs.serverKeyLegacyEncrypted)) {
            assertThatThrownBy(() -> JdkPem.privateKey("--ssl-keyfile", file, TestCerts.PASSWORD))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--ssl-keyfile " + file)
                    .hasMessageContaining("org.bouncycastle:bcpkix-jdk18on")
                    .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
        }
    }

    @Test
    void badFilesAreClearErrors() throws Exception {
        assertThatThrownBy(() -> JdkPem.certificates("--ssl-certfile", certs.dir.resolve("missing.pem")))
                .hasMessage("--ssl-certfile " + certs.dir.resolve("missing.pem") + ": no such file");
        assertThatThrownBy(() -> JdkPem.certificates("--ssl-certfile", certs.serverKey)).hasMessageContaining("no PEM certificate");
        assertThatThrownBy(() -> JdkPem.privateKey("--ssl-keyfile", certs.caCert, null)).hasMessageContaining("no PEM private key");
        Path garbage = Files.writeString(certs.dir.resolve("garbage.pem"), "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n");
        assertThatThrownBy(() -> JdkPem.privateKey("--ssl-keyfile", garbage, null)).isInstanceOf(IllegalArgumentException.class);
    }
}
