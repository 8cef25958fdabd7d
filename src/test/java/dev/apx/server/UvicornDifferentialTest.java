package dev.apx.server;

import dev.apx.python.TestPython;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The same requests to apx and to Uvicorn ({@code --loop uvloop --http httptools}, from the 3.11
 * venv) serving the same {@code apxtest.http_apps}: status, headers (except date and server) and
 * body must agree. Runs in the 3.11 fork only (Uvicorn's wheels are installed there). Not compared:
 * http.response.pathsend (Uvicorn does not offer the extension) and the server/date values.
 */
class UvicornDifferentialTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static TestServer apx;
    private static Process uvicorn;
    private static int uvicornPort;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(TestPython.install().minorVersion().equals("3.11"), "Uvicorn is installed in the 3.11 venv only");
        apx = new TestServer("apxtest.http_apps", "app");
        try (ServerSocket free = new ServerSocket(0)) {
            uvicornPort = free.getLocalPort();
        }
        Path log = Files.createTempFile("uvicorn", ".log");
        uvicorn = new ProcessBuilder(TestPython.python().toString(), "-m", "uvicorn", "--loop", "uvloop", "--http", "httptools",
                "--app-dir", Path.of("target/test-classes/python").toAbsolutePath().toString(),
                "--port", String.valueOf(uvicornPort), "--no-access-log", "apxtest.http_apps:app")
                .redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        for (int i = 0; i < 600; i++) {
            try (Socket probe = new Socket("127.0.0.1", uvicornPort)) {
                return;
            } catch (java.io.IOException notYet) {
                Thread.sleep(25);
            }
        }
        throw new IllegalStateException("uvicorn did not start: " + Files.readString(log));
    }

    @AfterAll
    static void stop() throws Exception {
        if (uvicorn != null) {
            uvicorn.destroy();
            uvicorn.waitFor(10, TimeUnit.SECONDS);
        }
        if (apx != null) {
            apx.close();
        }
    }

    record Answer(int status, Map<String, List<String>> headers, String body) {
    }

    private static Answer ask(int port, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        Map<String, List<String>> headers = new TreeMap<>(response.headers().map());
        headers.remove("date");
        headers.remove("server");
        return new Answer(response.statusCode(), headers, response.body());
    }

    @Test
    void apxAndUvicornAgree() throws Exception {
        List<String[]> requests = List.of(
                new String[]{"POST", "/echo", "hello"},
                new String[]{"GET", "/echo", null},
                new String[]{"POST", "/echo-length", "x".repeat(300_000)},
                new String[]{"GET", "/stream", null},
                new String[]{"HEAD", "/stream", null},
                new String[]{"GET", "/big?100000", null},
                new String[]{"GET", "/no-content", null},
                new String[]{"GET", "/missing", null},
                new String[]{"GET", "/raise-before", null},
                new String[]{"GET", "/no-response", null},
                new String[]{"DELETE", "/echo", null});
        for (String[] r : requests) {
            Answer fromApx = ask(apx.port(), r[0], r[1], r[2]);
            Answer fromUvicorn = ask(uvicornPort, r[0], r[1], r[2]);
            assertThat(fromApx).as("%s %s", r[0], r[1]).isEqualTo(fromUvicorn);
        }
    }
}
