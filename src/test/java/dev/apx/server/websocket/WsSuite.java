package dev.apx.server.websocket;

import dev.apx.python.TestPython;
import dev.apx.server.api.WebSocketConfig;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code src/test/resources/wsclient/ws_suite.py} (the websockets client library and raw
 * sockets, in the 3.11 venv) against a server; returns each check's result as its JSON text.
 */
final class WsSuite {
    static final Path SCRIPT = Path.of("src/test/resources/wsclient/ws_suite.py").toAbsolutePath();
    static final Path APPS = Path.of("target/test-classes/python").toAbsolutePath();
    /** The flags both servers run with, so that the size and ping checks finish quickly. */
    static final List<String> FLAGS = List.of("--ws-max-size", "2097152", "--ws-ping-interval", "1", "--ws-ping-timeout", "1");

    private WsSuite() {
    }

    static WebSocketConfig config() {
        return new WebSocketConfig(true, 2097152, java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1), true);
    }

    static Map<String, String> run(String address, String... checks) throws Exception {
        List<String> command = new ArrayList<>(List.of(TestPython.python().toString(), SCRIPT.toString(), address));
        command.addAll(List.of(checks));
        Process client = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!client.waitFor(300, TimeUnit.SECONDS)) {
            client.destroyForcibly();
            throw new IllegalStateException("ws_suite.py did not finish");
        }
        Map<String, String> results = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int space = line.indexOf(' ');
            if (space > 0) {
                results.put(line.substring(0, space), line.substring(space + 1));
            }
        }
        return results;
    }

    /** A Uvicorn started by {@link #uvicorn}, and the port it listens on. */
    record Uvicorn(Process process, int port) {
    }

    /**
     * Uvicorn {@code --ws websockets} (uvloop) from the test venv, serving {@code app} with {@code flags} on
     * a port of its own choosing, read back from its "running on" line: a port found free and handed over
     * could be taken before Uvicorn binds it (by a parallel test lane).
     */
    static Uvicorn uvicorn(String app, List<String> flags) throws Exception {
        List<String> command = new ArrayList<>(List.of(TestPython.python().toString(), "-m", "uvicorn", "--ws", "websockets", "--loop", "uvloop",
                "--app-dir", APPS.toString(), "--port", "0", "--no-access-log"));
        command.addAll(flags);
        command.add(app);
        Process uvicorn = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        try {
            return new Uvicorn(uvicorn, dev.apx.ChildProcesses.watch(uvicorn, dev.apx.ChildProcesses.UVICORN_RUNNING_ON).port(0).get(15, java.util.concurrent.TimeUnit.SECONDS));
        } catch (Exception e) {
            uvicorn.destroy();
            throw e;
        }
    }
}
