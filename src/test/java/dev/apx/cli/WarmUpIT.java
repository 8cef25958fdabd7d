package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
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

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --warmup N}: N requests reach apx's built-in app before the port opens, none reach APP or the access log. */
class WarmUpIT {
    @TempDir
    Path tmp;

    @Test
    void warmsUpWithoutCallingTheAppOrLoggingAccess() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--warmup", "300", "--log-level", "debug", "apxtest.startup_apps:counting")) {
            assertThat(apx.stderr()).contains("warm-up: 300 of 300 requests answered");
            assertThat(get(apx.port)).as("the app's first request is the client's").isEqualTo("1");
            apx.awaitStdout("\"GET / HTTP/1.1\" 200", 1, 10);
            assertThat(ApxProcess.count(apx.stdout() + apx.stderr(), "HTTP/1.1\"")).as("access lines").isEqualTo(1);
        }
    }

    @Test
    void theCountComesFromTheEnvironmentAndZeroTurnsItOff() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_WARMUP", "7"), "--log-level", "debug", "apxtest.startup_apps:counting")) {
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
        assertThat(process.exitValue()).isEqualTo(1);
        assertThat(output).contains("apx: error: --warmup must be 0 or more requests, got -1");
    }

    private static String get(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
