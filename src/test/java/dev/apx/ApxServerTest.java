package dev.apx;

import dev.apx.python.TestPython;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** apx's command-line server started from Java: the same flags, start/port/stop. */
class ApxServerTest {
    @Test
    void servesWithTheCommandLinesFlagsAndStopsWithLifespanShutdown() throws Exception {
        Path log = Files.createTempFile("apx-server-lifespan", ".log");
        Path env = Files.writeString(Files.createTempFile("apx-server", ".env"), "APX_JAVA_TEST_LOG=" + log + "\n");
        ApxServer server = Apx.server("--python", TestPython.python().toString(), "--app-dir", "target/test-classes/python",
                "--port", "0", "--warmup", "0", "--env-file", env.toString(), "--root-path", "/api", "apxjava.apps:echo").start();
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/x?y=1"))
                    .header("X-Status", "202").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(202);
            assertThat(response.body()).contains("\"path\": \"/api/x\"", "\"query_string\": \"y=1\"", "\"client\": [\"127.0.0.1\"");
        }
        assertThat(Files.readAllLines(log)).containsExactly("startup");
        server.stop(Duration.ofSeconds(5));
        server.stop(Duration.ofSeconds(5));
        assertThat(Files.readAllLines(log)).containsExactly("startup", "shutdown");
        assertThatThrownBy(server::port).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void badFlagsAndProcessFlagsAreRefused() {
        assertThatThrownBy(() -> Apx.server("--no-such-flag", "main:app")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--no-such-flag");
        assertThatThrownBy(() -> Apx.server("--workers", "2", "main:app")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--workers");
        assertThatThrownBy(() -> Apx.server("--app-dir", "target/test-classes/python", "nosuchmodule_q:app",
                "--python", TestPython.python().toString(), "--port", "0").start()).isInstanceOf(ApxException.class)
                .hasMessageContaining("nosuchmodule_q");
    }
}
