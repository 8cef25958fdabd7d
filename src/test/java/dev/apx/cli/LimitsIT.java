package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged jar with the hardening flags: {@code --limit-max-requests} stops the server
 * gracefully (lifespan shutdown, exit 0) after that many requests, as Uvicorn does with one
 * worker; {@code --timeout-request-body} (or its variable) cuts a stalled body; a limit flag with a
 * bad value is one clear error line and exit 1.
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

    /** {@code --timeout-request-body 1}, and the same from APX_TIMEOUT_REQUEST_BODY: a body that stalls gets a 408 within seconds (default: 60). */
    @Test
    void theBodyTimeoutComesFromItsFlagOrItsEnvironmentVariable() throws Exception {
        Files.writeString(tmp.resolve("reads.py"), """
                async def app(scope, receive, send):
                    if scope["type"] != "http":
                        return
                    while (await receive()).get("more_body"):
                        pass
                    await send({"type": "http.response.start", "status": 200, "headers": []})
                    await send({"type": "http.response.body", "body": b"read"})
                """);
        for (boolean fromEnv : new boolean[]{false, true}) {
            List<String> args = new ArrayList<>(List.of("--lifespan", "off", "reads:app"));
            if (!fromEnv) {
                args.addAll(0, List.of("--timeout-request-body", "1"));
            }
            Process process = start(fromEnv ? Map.of("APX_TIMEOUT_REQUEST_BODY", "1") : Map.of(), args.toArray(String[]::new));
            try {
                int port = awaitPort(process, tmp.resolve("stderr.txt"));
                try (Socket socket = new Socket("127.0.0.1", port)) {
                    socket.setSoTimeout(10_000);
                    socket.getOutputStream().write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello"
                            .getBytes(StandardCharsets.ISO_8859_1));
                    String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                    assertThat(response).as(fromEnv ? "APX_TIMEOUT_REQUEST_BODY=1" : "--timeout-request-body 1").startsWith("HTTP/1.1 408 ");
                }
                assertThat(Files.readString(tmp.resolve("stderr.txt")))
                        .contains("WARNING:  Request body not complete: nothing received for 1 s, closing the connection");
            } finally {
                process.destroy();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
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
        return start(Map.of(), args);
    }

    private Process start(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-jar", JAR.toString(),
                "--python", PYTHON.toString(), "--app-dir", tmp.toString(), "--port", "0"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(env);
        return builder.directory(tmp.toFile())
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
