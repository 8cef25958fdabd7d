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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged jar with the hardening flags: {@code --limit-max-requests} stops the server
 * gracefully (lifespan shutdown, exit 0) after that many requests, as Uvicorn does with one
 * worker; a limit flag with a bad value is one clear error line and exit 1.
 */
class LimitsIT {
    private static final String JAVA = ProcessHandle.current().info().command().orElseThrow();
    private static final Path JAR = Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath();
    private static final Path PYTHON = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();
    private static final Pattern RUNNING = Pattern.compile("apx running on http://127\\.0\\.0\\.1:(\\d+) ");

    @TempDir
    Path tmp;

    @Test
    void stopsGracefullyAfterTheMaximumNumberOfRequests() throws Exception {
        Files.writeString(tmp.resolve("counted.py"), """
                async def app(scope, receive, send):
                    if scope["type"] == "lifespan":
                        while True:
                            message = await receive()
                            if message["type"] == "lifespan.shutdown":
                                print("lifespan shutdown ran", flush=True)
                            await send({"type": message["type"] + ".complete"})
                            if message["type"] == "lifespan.shutdown":
                                return
                    await send({"type": "http.response.start", "status": 200, "headers": []})
                    await send({"type": "http.response.body", "body": scope["path"].encode()})
                """);
        Process process = start("--limit-max-requests", "3", "--no-access-log", "counted:app");
        Path stderr = tmp.resolve("stderr.txt");
        int port = awaitPort(process, stderr);
        HttpClient client = HttpClient.newHttpClient();
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/r" + i)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.body()).isEqualTo("/r" + i);
        }
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("exits by itself after 3 requests").isTrue();

        assertThat(process.exitValue()).isZero();
        assertThat(Files.readString(stderr)).contains("WARNING:  Maximum request limit of 3 exceeded. Terminating process.")
                .contains("INFO:     Shutting down").contains("INFO:     Finished server process [");
        assertThat(Files.readString(tmp.resolve("stdout.txt"))).contains("lifespan shutdown ran");
    }

    @Test
    void aBadLimitIsOneErrorLine() throws Exception {
        Files.writeString(tmp.resolve("counted.py"), "async def app(scope, receive, send):\n    pass\n");
        Process process = start("--limit-request-fields", "0", "--lifespan", "off", "counted:app");
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(process.exitValue()).as("a bad flag value").isEqualTo(2);
        assertThat(Files.readString(tmp.resolve("stderr.txt")).lines().filter(l -> l.startsWith("apx: error: ")).toList())
                .containsExactly("apx: error: --limit-request-fields must be at least 1, got 0");
    }

    private Process start(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-jar", JAR.toString(),
                "--python", PYTHON.toString(), "--app-dir", tmp.toString(), "--port", "0"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(tmp.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(tmp.resolve("stdout.txt").toFile()).redirectError(tmp.resolve("stderr.txt").toFile()).start();
    }

    private static int awaitPort(Process process, Path stderr) throws Exception {
        for (int i = 0; i < 1200; i++) {
            Matcher running = RUNNING.matcher(Files.readString(stderr));
            if (running.find()) {
                return Integer.parseInt(running.group(1));
            }
            assertThat(process.isAlive()).as("apx exited early: %s", Files.readString(stderr)).isTrue();
            Thread.sleep(50);
        }
        process.destroyForcibly();
        throw new AssertionError("apx did not start: " + Files.readString(stderr));
    }
}
