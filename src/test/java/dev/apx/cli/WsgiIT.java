package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged jar serving WSGI and ASGI 2 apps: {@code --interface}, {@code --blocking-threads},
 * the hung-request warning, wsgi.errors and tracebacks in the log, and the graceful shutdown of
 * an in-flight WSGI request.
 */
class WsgiIT {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path tmp;

    private static CompletableFuture<HttpResponse<String>> get(int port, String path) {
        return CLIENT.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesAWsgiAppOnItsBlockingThreadsAndDrainsItOnShutdown() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--interface", "wsgi", "--blocking-threads", "1",
                "--slow-callback-duration", "0.3", "apxtest.wsgi_apps:app")) {
            assertThat(get(apx.port, "/environ?x=1").get().body()).contains("\"QUERY_STRING\": \"x=1\"", "\"wsgi.multithread\": true",
                    "\"wsgi.multiprocess\": false");

            // one blocking thread: a request waits behind a sleeping one
            CompletableFuture<HttpResponse<String>> sleeper = get(apx.port, "/sleep?1");
            Thread.sleep(200);
            long began = System.nanoTime();
            assertThat(get(apx.port, "/empty").get().statusCode()).isEqualTo(204);
            assertThat(Duration.ofNanos(System.nanoTime() - began)).as("queued behind /sleep on the one thread").isGreaterThan(Duration.ofMillis(500));
            assertThat(sleeper.get().body()).isEqualTo("slept");
            apx.awaitStderr("WARNING:  apx: GET /sleep?1 has run for ", 10);

            assertThat(get(apx.port, "/errors").get().body()).isEqualTo("ok");
            apx.awaitStderr("a line for wsgi.errors", 10);
            assertThat(get(apx.port, "/raise-before").get().statusCode()).isEqualTo(500);
            apx.awaitStderr("RuntimeError: raised before the response", 10);
            assertThat(apx.stderr()).contains("ERROR:    Exception in WSGI application\nTraceback (most recent call last):");

            // SIGTERM while a request runs: it finishes, then apx exits 0
            CompletableFuture<HttpResponse<String>> inFlight = get(apx.port, "/sleep?1.5");
            Thread.sleep(300);
            apx.process.destroy();
            HttpResponse<String> finished = inFlight.get();
            assertThat(finished.statusCode()).isEqualTo(200);
            assertThat(finished.body()).isEqualTo("slept");
            assertThat(apx.awaitExit(30)).isZero();
            apx.assertNoJavaStackTrace();
        }
    }

    @Test
    void aWorkerOfSeveralSaysSoInWsgiMultiprocess() throws Exception {
        // as Gunicorn: wsgi.multiprocess is true when --workers > 1 (an app may then keep no state in the process)
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--no-access-log", "--workers", "2", "--interface", "wsgi",
                "apxtest.wsgi_apps:app")) {
            assertThat(get(apx.port, "/environ").get().body()).contains("\"wsgi.multiprocess\": true");
        }
    }

    @Test
    void servesAnAsgi2AppThroughTheAdapter() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_INTERFACE", "asgi2"), "--no-access-log", "apxtest.wsgi_apps:Asgi2Class")) {
            HttpResponse<String> response = get(apx.port, "/two").get();
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("asgi2 /two");
        }
    }
}
