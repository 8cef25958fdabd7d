package dev.apx.server.http2;

import dev.apx.log.Log;
import dev.apx.python.TestPython;
import dev.apx.server.FrameworksTest;
import dev.apx.server.TestServer;
import dev.apx.server.shared.Http2Config;
import dev.apx.server.shared.Limits;
import dev.apx.server.shared.Protocols;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.tls.TestCerts;
import dev.apx.server.tls.TlsConfig;
import dev.apx.server.tls.TlsContext;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * HTTP/2 with real clients: a raw-frame client (the h2 package, src/test/resources/clients/h2_client.py)
 * for normal use, flow control, resets and the attacks a server must refuse; curl with prior
 * knowledge and over TLS; httpx with http2=True on the Starlette and FastAPI examples; the JDK's
 * client for the graceful shutdown's GOAWAY. Runs in the 3.11 fork only (frameworks, and the budget).
 */
class Http2Test {
    private static final Path CLIENTS = Path.of("src/test/resources/clients").toAbsolutePath();
    private static final Path PATHSEND = Path.of("src/test/resources/python/apxtest/pathsend.txt").toAbsolutePath();
    private static final Path EXAMPLES = Path.of("examples").toAbsolutePath();

    @TempDir
    static Path dir;
    static TestCerts certs;

    @BeforeAll
    static void setUp() throws Exception {
        FrameworksTest.frameworksInstalled(); // puts examples/ on sys.path
        certs = new TestCerts(dir);
    }

    @AfterAll
    static void restoreSysPath() {
        FrameworksTest.restoreSysPath();
    }

    record Output(int exitCode, String stdout, String stderr) {
    }

    private static Output run(List<String> command) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        if (!process.waitFor(180, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish; stdout: " + Files.readString(out) + " stderr: " + Files.readString(err));
        }
        return new Output(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static ServerConfig tls(boolean http2) {
        TlsConfig tls = new TlsConfig(certs.serverCert, certs.serverKey, null, null, 0, null, TlsConfig.PROTOCOL_TLS_SERVER, "auto");
        return ServerConfig.defaults().withAccessLog(false)
                .withProtocols(new Protocols(TlsContext.load(tls, http2), Http2Config.defaults().withEnabled(http2)));
    }

    @Test
    void rawFrameClientUseFlowControlResetsAndAttacks() throws Exception {
        // --timeout-write 5: the zero-window stream is reset after 5 s
        ServerConfig config = ServerConfig.defaults().withAccessLog(false).withLimits(Limits.defaults().withTimeouts(60, 5));
        List<String> cases = List.of("basics", "reset", "flow", "slow_reader", "stream_limit", "zero_window", "rapid_reset",
                "continuation_flood", "hpack_bomb", "settings_flood", "ping_flood");
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", config)) {
            Output result = run(List.of(TestPython.python().toString(), CLIENTS.resolve("h2_client.py").toString(),
                    String.valueOf(server.port()), String.join(",", cases), PATHSEND.toString()));
            assertThat(result.exitCode()).as("h2_client.py:%n%s%n%s", result.stdout(), result.stderr()).isZero();
            result.stdout().lines().filter(line -> line.startsWith("info: ")).forEach(System.out::println); // the figures, for the log
            for (String name : cases) {
                assertThat(result.stdout()).contains("ok: " + name + "\n");
            }
            // the server counts a stream done when its last write completes or its channel closes, which can
            // come a moment after the client saw it end: wait for that, a leaked count never gets there
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); server.server.inFlight() != 0
                    && System.nanoTime() < deadline; ) {
                Thread.sleep(10);
            }
            assertThat(server.server.inFlight()).as("every stream accounted for").isZero();
        }
    }

    /**
     * Both reset limits end the connection with one WARNING line: the client's own resets (rapid reset)
     * and the resets it makes the server send (MadeYouReset); and a :path HTTP/1.1 would refuse is a 400.
     */
    @Test
    void resetFloodsAreLoggedAndInvalidPathsRefused() throws Exception {
        List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        Log.route(new Log.Sink() {
            @Override
            public void server(Log.Level level, String message) {
                if (level == Log.Level.WARNING) {
                    warnings.add(message);
                }
            }

            @Override
            public void access(String client, String method, String pathWithQuery, String httpVersion, int status) {
            }
        }, Log.Level.INFO);
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", ServerConfig.defaults().withAccessLog(false))) {
            for (String name : List.of("rapid_reset", "made_you_reset", "invalid_paths")) {
                Output result = run(List.of(TestPython.python().toString(), CLIENTS.resolve("h2_client.py").toString(),
                        String.valueOf(server.port()), name));
                assertThat(result.stdout()).as("h2_client.py %s:%n%s", name, result.stderr()).contains("ok: " + name + "\n");
            }
        } finally {
            Log.route(null, Log.Level.INFO);
        }
        assertThat(warnings.stream().filter(line -> line.contains("RST frames")).count()).as("%s", warnings).isEqualTo(2);
    }

    private static Output curl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "--silent", "--show-error", "--max-time", "30"));
        command.addAll(List.of(args));
        Output result = run(command);
        assertThat(result.exitCode()).as("curl %s: %s", String.join(" ", args), result.stderr()).isZero();
        return result;
    }

    @Test
    void curlWithPriorKnowledgeAndOverTls() throws Exception {
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", ServerConfig.defaults().withAccessLog(false))) {
            String base = "http://127.0.0.1:" + server.port();
            assertThat(curl("--http2-prior-knowledge", "--include", base + "/scope").stdout())
                    .startsWith("HTTP/2 200").contains("\"http_version\": \"2\"", "\"scheme\": \"http\"");
            assertThat(curl("--include", base + "/scope").stdout()).as("HTTP/1.1 on the same port")
                    .startsWith("HTTP/1.1 200").contains("\"http_version\": \"1.1\"");
            assertThat(curl("--http2", "--include", base + "/scope").stdout()).as("Upgrade: h2c is not taken up without --h2c-upgrade")
                    .startsWith("HTTP/1.1 200").doesNotContain("101 Switching").contains("\"http_version\": \"1.1\"");
            Output nghttp = run(List.of("nghttp", "--upgrade", "--verbose", base + "/scope"));
            assertThat(nghttp.stdout()).as("nghttp -u: %s", nghttp.stderr()).doesNotContain("HTTP Upgrade success");
        }
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", tls(true))) {
            String base = "https://127.0.0.1:" + server.port();
            String ca = certs.caCert.toString();
            assertThat(curl("--http2", "--cacert", ca, "--include", base + "/scope").stdout())
                    .startsWith("HTTP/2 200").contains("\"http_version\": \"2\"", "\"scheme\": \"https\"");
            assertThat(curl("--http2", "--cacert", ca, "--include", base + "/trailers").stdout())
                    .contains("body then trailers").contains("x-checksum: abc123");
            assertThat(curl("--http1.1", "--cacert", ca, "--include", base + "/scope").stdout())
                    .startsWith("HTTP/1.1 200").contains("\"http_version\": \"1.1\"");
        }
    }

    @Test
    void h2cUpgradeWithTheFlagIsStreamOneOverHttp2() throws Exception {
        ServerConfig upgrade = ServerConfig.defaults().withAccessLog(false)
                .withProtocols(new Protocols(null, Http2Config.defaults().withH2cUpgrade(true)));
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", upgrade)) {
            String base = "http://127.0.0.1:" + server.port();
            String curl = curl("--http2", "--include", base + "/scope?x=1", base + "/trailers").stdout();
            assertThat(curl).as("curl sends Upgrade: h2c").startsWith("HTTP/1.1 101 Switching Protocols")
                    .contains("\nHTTP/2 200", "\"http_version\": \"2\"", "\"query_string\": \"x=1\"", "[\"host\", \"127.0.0.1:" + server.port() + "\"]")
                    .as("the request's connection headers are not the h2 stream's").doesNotContain("http2-settings", "\"upgrade\"")
                    .as("a second request on the upgraded connection: a new stream").contains("body then trailers", "x-checksum: abc123");
            Output nghttp = run(List.of("nghttp", "--upgrade", "--verbose", base + "/scope"));
            assertThat(nghttp.exitCode()).as(nghttp.stderr()).isZero();
            assertThat(nghttp.stdout()).contains("HTTP Upgrade success", "\"http_version\": \"2\"");
            assertThat(curl("--http2", "--include", "--data", "abc", base + "/scope").stdout()).as("a request with a body stays HTTP/1.1")
                    .startsWith("HTTP/1.1 200").contains("\"http_version\": \"1.1\"", "\"body\": 3");
            assertThat(curl("--http1.1", "--include", "-H", "Connection: Upgrade", "-H", "Upgrade: h2c", base + "/scope").stdout())
                    .as("no HTTP2-Settings: not upgraded").startsWith("HTTP/1.1 200").contains("\"http_version\": \"1.1\"");
            assertThat(curl("--http1.1", "--include", "-H", "Connection: Upgrade", "-H", "Upgrade: websocket", base + "/scope").stdout())
                    .as("another Upgrade goes its usual way").startsWith("HTTP/1.1 ");
            assertThat(curl("--http2-prior-knowledge", "--include", base + "/scope").stdout()).startsWith("HTTP/2 200");
        }
    }

    @Test
    void withHttp2OffAlpnAndPriorKnowledgeGiveHttp11() throws Exception {
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", tls(false))) {
            assertThat(curl("--http2", "--cacert", certs.caCert.toString(), "--include",
                    "https://127.0.0.1:" + server.port() + "/scope").stdout()).startsWith("HTTP/1.1 200");
        }
        ServerConfig cleartext = ServerConfig.defaults().withAccessLog(false)
                .withProtocols(new Protocols(null, Http2Config.defaults().withEnabled(false)));
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", cleartext)) {
            Output refused = run(List.of("curl", "--silent", "--max-time", "30", "--http2-prior-knowledge",
                    "http://127.0.0.1:" + server.port() + "/scope"));
            assertThat(refused.exitCode()).as("h2 preface to an HTTP/1.1-only server").isNotZero();
        }
    }

    @ParameterizedTest(name = "{0} over HTTP/{1}")
    @CsvSource({"starlette, starlette_app, 2", "fastapi, fastapi_app, 2", "starlette, starlette_app, 1.1", "fastapi, fastapi_app, 1.1"})
    void frameworksWithHttpxOverTls(String name, String module, String version) throws Exception {
        try (TestServer server = new TestServer(module, "app", tls(true))) {
            Output result = run(List.of(TestPython.python().toString(), CLIENTS.resolve("httpx_h2.py").toString(),
                    "https://127.0.0.1:" + server.port(), certs.caCert.toString(), name, version, EXAMPLES.toString()));
            assertThat(result.exitCode()).as("httpx over HTTP/%s:%n%s%n%s", version, result.stdout(), result.stderr()).isZero();
            assertThat(result.stdout()).contains("ok: " + name + " root over HTTP/" + (version.equals("2") ? "2" : "1.1"));
        }
    }

    @Test
    void gracefulShutdownSendsGoawayAndLetsTheStreamInFlightFinish() throws Exception {
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", tls(true));
             HttpClient client = HttpClient.newBuilder().sslContext(certs.clientContext(false)).version(HttpClient.Version.HTTP_2).build()) {
            URI base = URI.create("https://127.0.0.1:" + server.port());
            assertThat(client.send(HttpRequest.newBuilder(base.resolve("/events")).build(), HttpResponse.BodyHandlers.ofString())
                    .version()).isEqualTo(HttpClient.Version.HTTP_2);
            CompletableFuture<HttpResponse<String>> slow = client.sendAsync(HttpRequest.newBuilder(base.resolve("/slow?1.5")).build(),
                    HttpResponse.BodyHandlers.ofString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            // the /slow stream has begun (the count includes the first request, whose stream may still
            // count as in flight for a moment after its response reached the client: not a signal)
            while (server.server.requests() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(server.server.inFlight()).as("/slow runs").isPositive();
            server.server.stopAccepting();
            HttpResponse<String> finished = slow.get(30, TimeUnit.SECONDS);
            assertThat(finished.statusCode()).isEqualTo(200);
            assertThat(finished.body()).isEqualTo("slow done");
            assertThatThrownBy(() -> client.send(HttpRequest.newBuilder(base.resolve("/events")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString())).as("no new stream after GOAWAY, and no new connection").isInstanceOf(java.io.IOException.class);
        }
    }
}
