package dev.apx.servlet;

import dev.apx.ChildProcesses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static dev.apx.ChildProcesses.PYTHON;
import static dev.apx.ChildProcesses.awaitLine;
import static dev.apx.ChildProcesses.installApx;
import static dev.apx.ChildProcesses.java;
import static dev.apx.ChildProcesses.run;
import static dev.apx.ChildProcesses.watch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * examples/java-host as a host builds and runs it: dev.apx:apx from the local repository, the
 * example built by Maven, then embedded Jetty 12 and Tomcat 11 serving a Java endpoint beside
 * ApxServlet at /py/* with examples/fastapi_app.py, driven by curl and httpx.
 */
class JavaHostIT {
    private static final Path EXAMPLE = Path.of("examples/java-host").toAbsolutePath();
    private static final Path HERE = Path.of(".");

    @BeforeAll
    static void installApxAndBuildTheExample() throws Exception {
        // the example's other dependencies (Jetty, Tomcat) and plugins come from where any user's build
        // gets them: Maven Central on first use. Offline (-o), a fresh ~/.m2 failed both steps ("has not
        // been downloaded from it before").
        installApx();
        run(EXAMPLE, 300, "mvn", "-B", "-ntp", "-q", "package");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void servesFastApiBesideAJavaEndpoint(String container) throws Exception {
        Path log = Files.createTempFile("java-host-" + container, ".log");
        ProcessBuilder builder = new ProcessBuilder(java(),
                "--enable-native-access=ALL-UNNAMED", "-cp", "target/classes:target/lib/*", "dev.apx.examples.JavaHost",
                container, "0", PYTHON.toString(), "python")
                .directory(EXAMPLE.toFile()).redirectErrorStream(true);
        builder.environment().put("JAVA_HOST_LOG", log.toString());
        Process host = builder.start();
        ChildProcesses.Output output = watch(host, Pattern.compile("java-host: \\w+ listening on (\\d+)"));
        try {
            String base = "http://127.0.0.1:" + output.port(0).get(60, TimeUnit.SECONDS);

            assertThat(runHere("curl", "-sS", base + "/java/hello")).isEqualTo("hello from java");
            String echo = runHere("curl", "-sS", "-H", "X-Trace: abc", base + "/py/echo/a%20b/c?x=1&y=two");
            assertThat(echo).contains("\"path\":\"/py/echo/a b/c\"", "\"root_path\":\"/py\"", "\"rest\":\"a b/c\"",
                    "\"query\":{\"x\":\"1\",\"y\":\"two\"}", "\"headers\":{\"x-trace\":\"abc\"}", "\"client\":\"127.0.0.1\"");
            assertThat(runHere("curl", "-sS", base + "/py/items/5?q=a")).isEqualTo("{\"item_id\":5,\"q\":\"a\"}");
            assertThat(runHere("curl", "-sS", "-H", "content-type: application/json", "-d", "{\"name\":\"pen\",\"price\":2.5}",
                    base + "/py/items")).isEqualTo("{\"name\":\"pen\",\"price_with_tax\":3.0,\"tags\":[]}");

            byte[] upload = new byte[10 * 1024 * 1024];
            new Random(27).nextBytes(upload);
            Path file = Files.write(Files.createTempFile("java-host-upload", ".bin"), upload);
            String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(upload));
            assertThat(runHere("curl", "-sS", "--data-binary", "@" + file, base + "/py/upload"))
                    .isEqualTo("{\"length\":" + upload.length + ",\"sha256\":\"" + digest + "\"}");
            Files.delete(file);

            // a streamed response and 200 concurrent requests, with httpx
            String httpx = runHere(PYTHON.toString(), "-c", HTTPX, base);
            assertThat(httpx).isEqualTo("streamed 200 chunked\nconcurrent 200 of 200");

            // a WebSocket through the container's Jakarta WebSocket server, with the websockets client
            String ws = runHere(PYTHON.toString(), "-c", WEBSOCKETS, base.replace("http://", "ws://") + "/py/ws");
            assertThat(ws).isEqualTo("echo: hi at /py\n0201\nclosed 4000 bye");

            // a client that leaves mid-stream: the app's generator is stopped
            run(HERE, 120, List.of(0, 28), "curl", "-sS", "-o", "/dev/null", "--max-time", "1", base + "/py/ticks?n=100000&delay=0.01");
            awaitLine(log, "ticks stopped early");

            try (OutputStream stdin = host.getOutputStream()) {
                stdin.write("stop\n".getBytes(StandardCharsets.US_ASCII));
            }
            assertThat(host.waitFor(60, TimeUnit.SECONDS)).as("the host stops").isTrue();
            assertThat(host.exitValue()).as(output.text()).isZero();
            List<String> events = Files.readAllLines(log);
            assertThat(events).containsExactly("lifespan startup", "ticks stopped early", "container stopped", "lifespan shutdown", "app closed");
        } finally {
            host.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }

    private static final String WEBSOCKETS = """
            import asyncio, sys, websockets
            async def main():
                async with websockets.connect(sys.argv[1]) as ws:
                    await ws.send("hi")
                    print(await ws.recv())
                    await ws.send(bytes([1, 2]))
                    print((await ws.recv()).hex())
                    await ws.send("bye")
                    try:
                        await ws.recv()
                    except websockets.ConnectionClosed as closed:
                        print("closed", closed.rcvd.code, closed.rcvd.reason, end="")
            asyncio.run(main())
            """;

    private static final String HTTPX = """
            import asyncio, sys, httpx
            async def main(base):
                async with httpx.AsyncClient(base_url=base, timeout=60, limits=httpx.Limits(max_connections=200)) as client:
                    async with client.stream("GET", "/py/ticks", params={"n": 200}) as response:
                        lines = [line async for line in response.aiter_lines()]
                        ok = lines == [f"tick {i}" for i in range(200)]
                        print("streamed", len(lines) if ok else lines[:3], response.headers.get("transfer-encoding"))
                    answers = await asyncio.gather(*[client.get(f"/py/items/{i}", params={"q": str(i)}) for i in range(200)])
                    good = sum(1 for i, r in enumerate(answers) if r.status_code == 200 and r.json() == {"item_id": i, "q": str(i)})
                    print("concurrent", good, "of", len(answers))
            asyncio.run(main(sys.argv[1]))
            """;

    /** Runs {@code command} in the project's directory; at most 120 s, exit code 0. */
    private static String runHere(String... command) throws Exception {
        return ChildProcesses.run(HERE, 120, command);
    }
}
