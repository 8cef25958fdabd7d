package dev.apx.cli;

import dev.apx.server.tls.TestCerts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --warmup N}: N requests (HTTP/1.1, h2, WebSocket messages; over TLS when it is configured) reach apx's built-in
 * app over loopback TCP, on a server of its own on 127.0.0.1; none reach APP or the access log. By default it runs after
 * the real port opens, only while the real server is idle, and ends once the real server answered N requests or stops;
 * with {@code --warmup-mode before} the port opens after it. For ASGI and WSGI apps, one process or several workers.
 */
class WarmupIT {
    /** The warm-up's debug line: answered, of, then by protocol, and the warm-up server's address. */
    private static final Pattern WARMED = Pattern.compile(
            "warm-up: (\\d+) of (\\d+) requests answered in \\d+ ms: \\d+ \\(http/1\\.1 (\\d+), h2 (\\d+), websocket (\\d+); "
                    + "(\\d+) connections to ([\\d.]+):(\\d+)\\)");

    @TempDir
    Path tmp;

    @Test
    void warmsUpWithoutCallingTheAppOrLoggingAccess() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--warmup", "300", "--log-level", "debug", "apxtest.startup_apps:counting")) {
            apx.awaitStderr("warm-up: 300 of 300 requests answered", 60);
            assertThat(get(apx.port)).as("the app's first request is the client's (no warm-up request or WebSocket reached it)")
                    .isEqualTo("1");
            apx.awaitStdout("\"GET / HTTP/1.1\" 200", 1, 10);
            assertThat(ApxProcess.count(apx.stdout() + apx.stderr(), "HTTP/1.1\"")).as("access lines").isEqualTo(1);
        }
    }

    @Test
    void warmsUpEveryProtocolOverALoopbackServerClosedBeforeThePortOpens() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--warmup", "400", "--warmup-mode", "before", "--log-level", "debug",
                "apxtest.startup_apps:counting")) {
            String log = apx.stderr();
            Matcher warmed = warmed(log, 400);
            assertThat(Integer.parseInt(warmed.group(4))).as("h2 requests (prior knowledge)").isPositive();
            assertThat(Integer.parseInt(warmed.group(5))).as("WebSocket messages").isPositive();
            assertThat(Integer.parseInt(warmed.group(6))).as("connections opened and closed").isGreaterThan(16);
            assertThat(warmed.group(7)).as("the warm-up server's host").isEqualTo("127.0.0.1");
            int warmupPort = Integer.parseInt(warmed.group(8));
            assertThat(warmupPort).isNotEqualTo(apx.port);
            assertThat(log.indexOf("apx running on")).as("the port opens after the warm-up").isGreaterThan(warmed.start());
            assertThat(listening(warmupPort)).as("the warm-up server is closed").isFalse();
            assertThat(get(apx.port)).isEqualTo("1");
        }
    }

    @Test
    void byDefaultItRunsAfterThePortOpensAndClosesItsServer() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--warmup", "400", "--log-level", "debug", "apxtest.startup_apps:counting")) {
            apx.awaitStderr("while the server was idle", 60);
            String log = apx.stderr();
            Matcher warmed = warmed(log, 400);
            assertThat(Integer.parseInt(warmed.group(4))).as("h2 requests").isPositive();
            assertThat(Integer.parseInt(warmed.group(5))).as("WebSocket messages").isPositive();
            assertThat(log.indexOf("apx running on")).as("the port opened before the warm-up ended").isLessThan(warmed.start());
            assertThat(listening(Integer.parseInt(warmed.group(8)))).as("the warm-up server is closed").isFalse();
            assertThat(get(apx.port)).as("no warm-up request reached the app").isEqualTo("1");
        }
    }

    @Test
    void realRequestsHoldItBackAndEndItOnceTheyReachItsCount() throws Exception {
        // a budget the warm-up alone takes a second or more for; the client's 1000 requests, one after another, end it
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--warmup", "1000", "--log-level", "debug", "--no-access-log",
                "apxtest.startup_apps:counting")) {
            HttpClient client = HttpClient.newHttpClient();
            String last = "";
            for (int i = 0; i < 1000; i++) {
                last = get(client, apx.port);
            }
            assertThat(last).as("the app saw the client's requests only").isEqualTo("1000");
            apx.awaitStderr("while the server was idle", 30);
            Matcher warmed = WARMED.matcher(apx.stderr());
            assertThat(warmed.find()).isTrue();
            assertThat(Integer.parseInt(warmed.group(1))).as("warm-up requests answered beside 1000 real ones")
                    .isLessThan(500);
        }
    }

    @Test
    void aStopWhileItRunsEndsItAndShutsDownCleanly() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--warmup", "1000000", "--log-level", "debug",
                "apxtest.startup_apps:counting")) {
            // Its million requests take minutes: it is running now. Not 1 s: under a full parallel test run the
            // warm-up had not yet answered its first request after 1 s (its server, client and JIT all start cold)
            Thread.sleep(3000);
            assertThat(apx.stderr()).doesNotContain("warm-up:");
            apx.process.destroy(); // SIGTERM
            assertThat(apx.awaitExit(30)).isZero();
            String log = apx.stderr();
            Matcher warmed = WARMED.matcher(log);
            assertThat(warmed.find()).as("its line in %s", log).isTrue();
            assertThat(Integer.parseInt(warmed.group(1))).as("answered before the stop").isPositive().isLessThan(1000000);
            assertThat(log.indexOf("Shutting down")).as("it ended first").isGreaterThan(warmed.start());
            assertThat(log).contains("Finished server process");
            apx.assertNoJavaStackTrace();
        }
    }

    @Test
    void theModeComesFromTheEnvironment() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_WARMUP_MODE", "before"), "--warmup", "50", "--log-level", "debug",
                "apxtest.startup_apps:counting")) {
            String log = apx.stderr();
            Matcher warmed = warmed(log, 50);
            assertThat(log.indexOf("apx running on")).as("the port opens after the warm-up").isGreaterThan(warmed.start());
            assertThat(log).contains("before the port opened");
        }
    }

    @Test
    void warmsUpOverTlsWhenTheServerServesIt() throws Exception {
        TestCerts certs = new TestCerts(Files.createDirectories(tmp.resolve("certs")));
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--warmup", "300", "--log-level", "debug",
                "--ssl-certfile", certs.serverCert.toString(), "--ssl-keyfile", certs.serverKey.toString(), "apxtest.startup_apps:counting")) {
            apx.awaitStderr("requests answered in", 60);
            Matcher warmed = warmed(apx.stderr(), 300);
            assertThat(Integer.parseInt(warmed.group(4))).as("h2 requests through ALPN").isPositive();
            assertThat(Integer.parseInt(warmed.group(5))).as("WebSocket messages over TLS").isPositive();
        }
    }

    @Test
    void aWsgiAppIsWarmedUpWithTheBuiltInWsgiApp() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--warmup", "300", "--log-level", "debug", "--interface", "wsgi",
                "apxtest.startup_apps:counting_wsgi")) {
            apx.awaitStderr("requests answered in", 60);
            Matcher warmed = warmed(apx.stderr(), 300);
            assertThat(Integer.parseInt(warmed.group(5))).as("no WebSockets for WSGI").isZero();
            assertThat(get(apx.port)).as("the app's first request is the client's").isEqualTo("1");
        }
    }

    @Test
    void eachWorkerWarmsUpBeforeTheSocketServes() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--warmup", "200", "--warmup-mode", "before", "--log-level", "debug",
                "--workers", "2", "apxtest.startup_apps:counting")) {
            apx.awaitStderr("warm-up: 200 of 200 requests answered", 2, 60);
            assertThat(get(apx.port)).as("no warm-up request reached a worker's app").isEqualTo("1");
        }
    }

    @Test
    void theCountComesFromTheEnvironmentAndZeroTurnsItOff() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_WARMUP", "7"), "--log-level", "debug", "apxtest.startup_apps:counting")) {
            apx.awaitStderr("requests answered in", 60);
            assertThat(apx.stderr()).contains("warm-up: 7 of 7 requests answered");
        }
        Path off = Files.createDirectories(tmp.resolve("off"));
        try (ApxProcess apx = ApxProcess.start(off, Map.of(), "--warmup", "0", "--log-level", "debug", "apxtest.startup_apps:counting")) {
            assertThat(get(apx.port)).isEqualTo("1");
            assertThat(apx.stderr()).doesNotContain("warm-up");
        }
    }

    @Test
    void aNegativeCountIsAStartupError() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path jar = Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath();
        Process process = new ProcessBuilder(List.of(java, "-jar", jar.toString(), "--warmup", "-1", "apxtest.startup_apps:counting"))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("a bad flag value").isEqualTo(2);
        assertThat(output).contains("apx: error: --warmup must be 0 or more requests, got -1");
    }

    private static Matcher warmed(String log, int requests) {
        Matcher warmed = WARMED.matcher(log);
        assertThat(warmed.find()).as("the warm-up's line in %s", log).isTrue();
        assertThat(warmed.group(1)).as("answered").isEqualTo(String.valueOf(requests));
        assertThat(warmed.group(2)).isEqualTo(String.valueOf(requests));
        assertThat(Integer.parseInt(warmed.group(3))).as("HTTP/1.1 requests").isPositive();
        return warmed;
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String get(int port) throws Exception {
        return get(HttpClient.newHttpClient(), port);
    }

    private static String get(HttpClient client, int port) throws Exception {
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
