package dev.apx;

import dev.apx.config.ApxConfig;
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

/** apx's command-line server started from Java with a typed configuration: start/port/stop. */
class ApxServerTest {
    @Test
    void servesWithATypedConfigurationAndStopsWithLifespanShutdown() throws Exception {
        Path log = Files.createTempFile("apx-server-lifespan", ".log");
        Path env = Files.writeString(Files.createTempFile("apx-server", ".env"), "APX_JAVA_TEST_LOG=" + log + "\n");
        ApxServer server = Apx.server(ApxConfig.builder()
                .app(app -> app.spec("apxjava.apps:echo").appDir(Path.of("target/test-classes/python")).envFile(env).rootPath("/api"))
                .runtime(runtime -> runtime.python(TestPython.python()))
                .bind(bind -> bind.port(0))
                .warmup(warmup -> warmup.requests(0))
                .build()).start();
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
    void badValuesAndProcessSettingsAreRefused() {
        assertThatThrownBy(() -> ApxConfig.builder().app(app -> app.spec("main:app")).limits(limits -> limits.requestFields(0)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--limit-request-fields must be at least 1, got 0");
        assertThatThrownBy(() -> ApxConfig.builder().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the app is required");
        assertThatThrownBy(() -> Apx.server(ApxConfig.builder().app(app -> app.spec("main:app")).workers(workers -> workers.workers(2)).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--workers");
        assertThatThrownBy(() -> Apx.server(ApxConfig.builder().app(app -> app.spec("main:app")).workers(workers -> workers.reload(true)).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--reload");
        assertThatThrownBy(() -> Apx.server(ApxConfig.builder()
                .app(app -> app.spec("nosuchmodule_q:app").appDir(Path.of("target/test-classes/python")))
                .runtime(runtime -> runtime.python(TestPython.python())).bind(bind -> bind.port(0)).build()).start())
                .isInstanceOf(ApxException.class).hasMessageContaining("nosuchmodule_q");
    }
}
