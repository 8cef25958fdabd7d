package dev.apx.server;

import dev.apx.python.TestPython;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The examples/ apps called by the clients users have: httpx (a Python script run by the 3.11
 * venv's interpreter, src/test/resources/clients/httpx_examples.py) and curl. Runs in the 3.11 fork
 * only, like {@link FrameworksTest} (the frameworks' wheels exist for 3.11 alone).
 */
class RealClientsTest {
    private static final Path EXAMPLES = Path.of("examples").toAbsolutePath();
    private static final Path HTTPX_SCRIPT = Path.of("src/test/resources/clients/httpx_examples.py").toAbsolutePath();

    @TempDir
    Path tmp;

    @BeforeAll
    static void frameworksInstalled() {
        FrameworksTest.frameworksInstalled();
    }

    @AfterAll
    static void restoreSysPath() {
        FrameworksTest.restoreSysPath();
    }

    record Output(int exitCode, String stdout, String stderr) {
    }

    private Output run(List<String> command) throws IOException, InterruptedException {
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish; stderr: " + Files.readString(err));
        }
        return new Output(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"hello, hello, app, 3", "starlette, starlette_app, app, 7", "fastapi, fastapi_app, app, 9",
            "django, djangoapp.asgi, application, 5"})
    void httpx(String name, String module, String attribute, int checks) throws Exception {
        try (TestServer server = new TestServer(module, attribute)) {
            Output result = run(List.of(TestPython.python().toString(), HTTPX_SCRIPT.toString(),
                    "http://127.0.0.1:" + server.port(), name, EXAMPLES.toString()));

            assertThat(result.exitCode()).as("httpx checks of %s; stdout:%n%s%nstderr:%n%s", name, result.stdout(), result.stderr()).isZero();
            assertThat(result.stdout().lines().filter(line -> line.startsWith("ok: "))).hasSize(checks);
        }
    }

    private Output curl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "--silent", "--show-error", "--max-time", "30"));
        command.addAll(List.of(args));
        Output result = run(command);
        assertThat(result.exitCode()).as("curl %s: %s", String.join(" ", args), result.stderr()).isZero();
        return result;
    }

    @Test
    void curlOnFastapi() throws Exception {
        try (TestServer server = new TestServer("fastapi_app", "app")) {
            String base = "http://127.0.0.1:" + server.port();

            assertThat(curl(base + "/items/7?q=%C3%A9t%C3%A9").stdout()).isEqualTo("{\"item_id\":7,\"q\":\"été\"}");
            assertThat(curl("-H", "content-type: application/json", "--data", "{\"name\": \"ink\", \"price\": 10}", base + "/items").stdout())
                    .isEqualTo("{\"name\":\"ink\",\"price_with_tax\":12.0,\"tags\":[]}");
            assertThat(curl("--include", base + "/stream").stdout().replace("\r\n", "\n"))
                    .startsWith("HTTP/1.1 200 OK\n").contains("\ntransfer-encoding: chunked\n").endsWith("line 8\nline 9\n");

            Path downloaded = tmp.resolve("hello.py");
            curl("--output", downloaded.toString(), base + "/file");
            assertThat(Files.mismatch(downloaded, EXAMPLES.resolve("hello.py"))).as("file response, byte for byte").isEqualTo(-1);

            // Two URLs in one curl run share one keep-alive connection: the second makes no new connect.
            assertThat(curl("--write-out", " connects=%{num_connects}\n", base + "/", base + "/items/1").stdout())
                    .isEqualTo("{\"message\":\"Hello from FastAPI\"} connects=1\n{\"item_id\":1,\"q\":null} connects=0\n");
            assertThat(curl("--http1.0", "--include", base + "/").stdout())
                    .startsWith("HTTP/1.1 200 OK\r\n").contains("\r\nconnection: close\r\n").endsWith("{\"message\":\"Hello from FastAPI\"}");
        }
    }

    @Test
    void curlUploadsToStarlette() throws Exception {
        try (TestServer server = new TestServer("starlette_app", "app")) {
            String url = "http://127.0.0.1:" + server.port() + "/echo";
            Path upload = tmp.resolve("upload.txt");
            Files.writeString(upload, "a".repeat(200_000));
            String expected = "{\"length\":200000,\"text\":\"" + "a".repeat(200_000) + "\"}";

            assertThat(curl("--data-binary", "@" + upload, "-H", "Transfer-Encoding: chunked", url).stdout())
                    .as("chunked upload").isEqualTo(expected);
            Output withContinue = curl("--verbose", "--data-binary", "@" + upload, "-H", "Expect: 100-continue", url);
            assertThat(withContinue.stdout()).as("upload after 100 Continue").isEqualTo(expected);
            assertThat(withContinue.stderr()).contains("< HTTP/1.1 100 Continue");
            assertThat(curl("--head", "http://127.0.0.1:" + server.port() + "/").stdout())
                    .startsWith("HTTP/1.1 200 OK\r\n").contains("\r\ncontent-length: 20\r\n").endsWith("\r\n\r\n");
        }
    }
}
