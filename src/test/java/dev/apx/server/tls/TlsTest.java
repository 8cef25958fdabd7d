package dev.apx.server.tls;

import dev.apx.python.TestPython;
import dev.apx.server.TestServer;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.shared.Http2Config;
import dev.apx.server.shared.Protocols;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * HTTPS with each TLS engine (BoringSSL and the JDK's): HTTP/1.1 and h2 through ALPN, the scope's
 * scheme and the ASGI TLS extension, client certificates, the PEM forms users bring, and the
 * startup errors of bad files. Certificates are made at test time ({@link TestCerts}). Runs in the
 * 3.11 fork only: TLS sits below the ASGI layer, which the HTTP tests cover on every Python.
 */
class TlsTest {
    @TempDir
    static Path dir;
    static TestCerts certs;

    @BeforeAll
    static void makeCertificates() throws Exception {
        assumeTrue(TestPython.install().minorVersion().equals("3.11"), "TLS is Python-independent: tested once, in the 3.11 fork");
        certs = new TestCerts(dir);
    }

    private static TlsConfig config(String engine) {
        return new TlsConfig(certs.serverCert, certs.serverKey, null, null, 0, null, TlsConfig.PROTOCOL_TLS_SERVER, engine);
    }

    private static ServerConfig serving(TlsConfig tls) {
        return ServerConfig.defaults().withAccessLog(false)
                .withProtocols(new Protocols(TlsContext.load(tls, true), Http2Config.defaults()));
    }

    private static HttpResponse<String> get(SSLContext context, HttpClient.Version version, String url) throws Exception {
        try (HttpClient client = HttpClient.newBuilder().sslContext(context).version(version).connectTimeout(Duration.ofSeconds(30)).build()) {
            return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"openssl", "jdk"})
    void servesHttp1AndH2WithTheTlsExtension(String engine) throws Exception {
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", serving(config(engine)))) {
            String url = "https://127.0.0.1:" + server.port() + "/scope?q=1";
            SSLContext client = certs.clientContext(false);

            HttpResponse<String> h2 = get(client, HttpClient.Version.HTTP_2, url);
            assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(h2.body()).contains("\"http_version\": \"2\"", "\"scheme\": \"https\"", "\"query_string\": \"q=1\"",
                    "[\"host\", \"127.0.0.1:" + server.port() + "\"]", "\"tls_version\": 772", "\"client_cert_chain\": []",
                    "\"client_cert_name\": null", "\"client_cert_error\": null");
            assertThat(h2.body()).doesNotContain("\":authority\"", "\":path\"");
            assertThat(h2.body()).containsPattern("\"cipher_suite\": (4865|4866|4867)"); // a TLS 1.3 suite, as a number
            assertThat(h2.body().replace("\\n", "\n")).contains(TestCerts.pem(certs.server));

            HttpResponse<String> http1 = get(client, HttpClient.Version.HTTP_1_1, url);
            assertThat(http1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
            assertThat(http1.body()).contains("\"http_version\": \"1.1\"", "\"scheme\": \"https\"", "\"tls_version\": 772");
            assertThat(http1.body().replace("\\n", "\n")).as("the certificate str made for the first request, shared").contains(TestCerts.pem(certs.server));

            String file = java.nio.file.Files.readString(Path.of("src/test/resources/python/apxtest/pathsend.txt"));
            String fileUrl = "https://127.0.0.1:" + server.port() + "/file";
            assertThat(get(client, HttpClient.Version.HTTP_1_1, fileUrl).body()).as("pathsend through the TLS engine").isEqualTo(file);
            assertThat(get(client, HttpClient.Version.HTTP_2, fileUrl).body()).as("pathsend as h2 DATA frames").isEqualTo(file);
        }
    }

    @Test
    void requiredClientCertificatesReachTheAppAndAClientWithoutOneIsRefused() throws Exception {
        TlsConfig required = new TlsConfig(certs.serverCert, certs.serverKey, null, certs.caCert, 2, null,
                TlsConfig.PROTOCOL_TLS_SERVER, "auto");
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", serving(required))) {
            String url = "https://127.0.0.1:" + server.port() + "/scope";

            assertThatThrownBy(() -> get(certs.clientContext(false), HttpClient.Version.HTTP_2, url)).isInstanceOf(IOException.class);

            HttpResponse<String> response = get(certs.clientContext(true), HttpClient.Version.HTTP_2, url);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).contains("\"client_cert_name\": \"O=apx,CN=client one\"");
            assertThat(response.body().replace("\\n", "\n")).contains(TestCerts.pem(certs.client));
        }
    }

    @Test
    void plainHttpOnTheTlsPortClosesThatConnectionOnly() throws Exception {
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", serving(config("auto")));
             Socket plain = new Socket("127.0.0.1", server.port())) {
            plain.setSoTimeout(15_000);
            plain.getOutputStream().write("GET /scope HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = plain.getInputStream();
            byte[] answer = in.readAllBytes(); // ends when the server closes
            assertThat(new String(answer, StandardCharsets.ISO_8859_1)).doesNotContain("HTTP/1.1 200");

            assertThat(get(certs.clientContext(false), HttpClient.Version.HTTP_2, "https://127.0.0.1:" + server.port() + "/scope")
                    .statusCode()).isEqualTo(200);
        }
    }

    @Test
    void webSocketsWorkOverTlsWithSchemeWss() throws Exception {
        try (TestServer server = TestServer.withWebSockets("apxtest.tls_apps", "app", serving(config("auto")), WebSocketConfig.defaults());
             HttpClient client = HttpClient.newBuilder().sslContext(certs.clientContext(false)).build()) {
            CompletableFuture<String> received = new CompletableFuture<>();
            WebSocket socket = client.newWebSocketBuilder().buildAsync(URI.create("wss://127.0.0.1:" + server.port() + "/ws"),
                    new WebSocket.Listener() {
                        @Override
                        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                            received.complete(data.toString());
                            return null;
                        }
                    }).get(30, TimeUnit.SECONDS);
            socket.sendText("hello", true);
            assertThat(received.get(30, TimeUnit.SECONDS)).isEqualTo("{\"scheme\": \"wss\", \"echo\": \"hello\", \"tls\": true}");
            socket.abort();
        }
    }

    @Test
    void everyPemFormUsersBringLoads() {
        for (TlsConfig form : new TlsConfig[]{
                new TlsConfig(certs.serverCert, certs.serverKeyPkcs1, null, null, 0, null, 17, "auto"),
                new TlsConfig(certs.serverCert, certs.serverKeyEncrypted, TestCerts.PASSWORD, null, 0, null, 17, "auto"),
                new TlsConfig(certs.serverCert, certs.serverKeyLegacyEncrypted, TestCerts.PASSWORD, null, 0, null, 17, "jdk"),
                new TlsConfig(certs.serverCertAndKey, null, null, null, 0, null, 17, "auto")}) {
            assertThat(TlsContext.load(form, true).engineName()).as("%s", form).isNotBlank();
        }
    }

    @Test
    void badFilesAndFlagsAreOneClearError() {
        Path missing = dir.resolve("missing.pem");
        Object[][] cases = {
                {new TlsConfig(missing, certs.serverKey, null, null, 0, null, 17, "auto"), "--ssl-certfile " + missing + ": no such file"},
                {new TlsConfig(certs.serverCert, certs.serverKeyEncrypted, "wrong", null, 0, null, 17, "auto"), "wrong --ssl-keyfile-password"},
                {new TlsConfig(certs.serverCert, certs.serverKeyLegacyEncrypted, "wrong", null, 0, null, 17, "auto"), "wrong --ssl-keyfile-password"},
                {new TlsConfig(certs.serverCert, certs.serverKeyEncrypted, null, null, 0, null, 17, "auto"), "give its password with --ssl-keyfile-password"},
                {new TlsConfig(certs.serverCert, certs.otherKey, null, null, 0, null, 17, "auto"), "does not match the certificate"},
                {new TlsConfig(certs.serverKey, certs.serverKey, null, null, 0, null, 17, "auto"), "no PEM certificate"},
                {new TlsConfig(certs.serverCert, certs.caCert, null, null, 0, null, 17, "auto"), "no PEM private key"},
                {new TlsConfig(certs.serverCert, certs.serverKey, null, null, 2, null, 17, "auto"), "needs --ssl-ca-certs"},
                {new TlsConfig(certs.serverCert, certs.serverKey, null, null, 3, null, 17, "auto"), "--ssl-cert-reqs must be 0"},
                {new TlsConfig(certs.serverCert, certs.serverKey, null, null, 0, null, 3, "auto"), "not supported"},
                {new TlsConfig(certs.serverCert, certs.serverKey, null, null, 0, "NO-SUCH-CIPHER", 17, "auto"), "cannot set up TLS"},
                {new TlsConfig(certs.serverCert, certs.serverKey, null, null, 0, null, 17, "gnutls"), "--ssl-engine"},
        };
        for (Object[] c : cases) {
            assertThatThrownBy(() -> TlsContext.load((TlsConfig) c[0], true)).as("%s", c[0])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining((String) c[1]);
        }
    }
}
