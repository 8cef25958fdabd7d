package dev.apx.cli;

import dev.apx.server.tls.TestCerts;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtimes' stress test: {@code --interpreters 3} (on 3.11, 3.12 and 3.13) serving HTTP/1.1 keep-alive, h2 (prior knowledge),
 * request bodies (whole and streamed), streamed responses and WebSocket echo sessions all at once for
 * {@value #LOAD_SECONDS} s with real clients (httpx, websockets, the h2 package:
 * {@code src/test/resources/clients/stress_client.py}), then SIGTERM while the load runs.
 *
 * <p>It holds when: every runtime (told apart by {@code id(sys.modules)}) served HTTP/1.1, h2 and
 * WebSockets; every body was right and no client saw an error; a connection never changed runtime;
 * each runtime's app started exactly as many requests as the clients got whole responses from it
 * (none lost, none unanswered); the slow responses in flight on each runtime at SIGTERM finished,
 * every byte, over HTTP/1.1 and h2; each WebSocket was closed with 1012; lifespan startup and shutdown
 * ran once in each runtime, shutdown after the last request; exit 0.
 *
 * <p>The same run once more over TLS ({@code --ssl-certfile}/{@code --ssl-keyfile}, certificates of {@link TestCerts}): a port
 * serves TLS or cleartext, not both, so this is a run of its own, with every connection over TLS: h2 through ALPN, HTTP/1.1
 * over TLS, wss. There every runtime must also have served h2 and HTTP/1.1 responses whose scope had the TLS extension (the
 * app's {@code x-tls} header), and finished h2 streams over TLS in flight at SIGTERM.
 */
class RuntimesStressIT {
    private static final int RUNTIMES = 3;
    private static final int LOAD_SECONDS = 8;
    private static final Path CLIENT = Path.of("src/test/resources/clients/stress_client.py").toAbsolutePath();
    private static final Path PYTHON = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();

    @TempDir
    Path tmp;

    /** What the client printed: counts per runtime and kind, the errors, its figures. */
    record Seen(Map<String, Map<String, Long>> counts, List<String> errors, Map<String, Long> stats) {
        static Seen parse(String output) {
            Map<String, Map<String, Long>> counts = new TreeMap<>();
            List<String> errors = new ArrayList<>();
            Map<String, Long> stats = new HashMap<>();
            for (String line : output.lines().toList()) {
                String[] words = line.split(" ", 4);
                switch (words[0]) {
                    case "count" -> counts.computeIfAbsent(words[1], r -> new TreeMap<>()).put(words[2], Long.parseLong(words[3]));
                    case "error" -> errors.add(line.substring(6));
                    case "stat" -> stats.put(words[1], Long.parseLong(words[2]));
                    default -> { }
                }
            }
            return new Seen(counts, errors, stats);
        }

        long of(String runtime, String kind) {
            return counts.getOrDefault(runtime, Map.of()).getOrDefault(kind, 0L);
        }
    }

    /** One runtime's lifespan shutdown line: {@code runtime=ID startups=1 started=N http=N ...}. */
    static Map<String, String> fields(String line) {
        Map<String, String> fields = new HashMap<>();
        for (String pair : line.split(" ")) {
            String[] kv = pair.split("=", 2);
            fields.put(kv[0], kv[1]);
        }
        return fields;
    }

    /**
     * Cleartext: uvloop on 3.11, asyncio on 3.12 and 3.13 (asyncio on 3.11: RuntimesIT,
     * ReloadUnderLoadIT). TLS: asyncio on 3.11 (TLS is Netty's, the same with either loop).
     */
    @ParameterizedTest(name = "Python {0}, --loop {1}, TLS {2}")
    @CsvSource({"3.11, uvloop, false", "3.12, asyncio, false", "3.13, asyncio, false", "3.11, asyncio, true"})
    void threeRuntimesServeEveryProtocolAtOnceAndDrainEachOnSigterm(String python, String loop, boolean tls) throws Exception {
        Path marker = tmp.resolve("lifespan-shutdown.txt");
        Path server = Path.of(System.getProperty("apx.python" + python.replace(".", ""), ".venv/py" + python + "/bin/python"));
        List<String> args = new ArrayList<>(List.of("--interpreters", String.valueOf(RUNTIMES),
                "--loop", loop, "--no-access-log", "--warmup", "0", "--timeout-graceful-shutdown", "10"));
        List<String> clientArgs = new ArrayList<>();
        if (tls) {
            TestCerts certs = new TestCerts(Files.createDirectories(tmp.resolve("certs")));
            args.addAll(List.of("--ssl-certfile", certs.serverCert.toString(), "--ssl-keyfile", certs.serverKey.toString()));
            clientArgs.add(certs.caCert.toString());
        }
        args.add("apxtest.stress_app:app");
        try (ApxProcess apx = ApxProcess.start(tmp, ApxProcess.testApps(), server, Map.of("APX_STRESS_MARKER", marker.toString()),
                args.toArray(String[]::new))) {
            apx.awaitStderr("Serving in " + RUNTIMES + " runtimes", 60); // the first serves at once, the others join when imported
            Path out = tmp.resolve("client-stdout.txt");
            Path err = tmp.resolve("client-stderr.txt");
            List<String> command = new ArrayList<>(List.of(PYTHON.toString(), CLIENT.toString(), String.valueOf(apx.port),
                    String.valueOf(apx.process.pid()), String.valueOf(LOAD_SECONDS), String.valueOf(RUNTIMES)));
            command.addAll(clientArgs);
            Process client = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!client.waitFor(120, TimeUnit.SECONDS)) {
                client.destroyForcibly();
                throw new AssertionError("the client did not finish within 120 s: " + Files.readString(err) + "\napx: " + apx.stderr());
            }
            assertThat(client.exitValue()).as("client: %s", Files.readString(err)).isZero();
            int exit = apx.awaitExit(30);
            String stderr = apx.stderr();
            Seen seen = Seen.parse(Files.readString(out));
            System.out.printf("Python %s, --interpreters %d --loop %s, TLS %s: %s; %s%n", python, RUNTIMES, loop, tls, seen.counts(), seen.stats());

            assertThat(seen.errors()).as("what the clients saw go wrong").isEmpty();
            assertThat(seen.stats().get("errors")).isZero();
            assertThat(exit).as(stderr).isZero();
            assertThat(seen.counts()).as("runtimes that answered").hasSize(RUNTIMES);
            assertThat(seen.stats().get("tls")).as("the client spoke TLS").isEqualTo(tls ? 1 : 0);
            for (String runtime : seen.counts().keySet()) {
                String which = "runtime " + runtime + " " + seen.counts().get(runtime);
                if (tls) { // every response of this run over TLS, its scope with the TLS extension, in each runtime
                    assertThat(seen.of(runtime, "h2_tls")).as("%s: h2 over TLS (ALPN)", which).isPositive().isEqualTo(seen.of(runtime, "h2"));
                    assertThat(seen.of(runtime, "http/1.1_tls")).as("%s: HTTP/1.1 over TLS", which).isPositive()
                            .isEqualTo(seen.of(runtime, "http/1.1"));
                    assertThat(seen.of(runtime, "slow_drained_h2_tls")).as("%s: h2 streams over TLS in flight at SIGTERM, finished", which)
                            .isPositive().isEqualTo(seen.of(runtime, "slow_drained_h2"));
                } else {
                    assertThat(seen.of(runtime, "h2_tls") + seen.of(runtime, "http/1.1_tls")).as("%s: nothing over TLS", which).isZero();
                }
                assertThat(seen.of(runtime, "http/1.1")).as("%s: HTTP/1.1 keep-alive", which).isPositive();
                assertThat(seen.of(runtime, "h2")).as("%s: h2", which).isPositive();
                assertThat(seen.of(runtime, "ws_sessions")).as("%s: WebSocket sessions", which).isPositive();
                assertThat(seen.of(runtime, "ws_messages")).as("%s: WebSocket echoes", which).isPositive();
                assertThat(seen.of(runtime, "ws_closed_1012")).as("%s: each WebSocket closed with 1012", which).isEqualTo(seen.of(runtime, "ws_sessions"));
                assertThat(seen.of(runtime, "slow_drained_http/1.1")).as("%s: HTTP/1.1 responses in flight at SIGTERM, finished", which).isPositive();
                assertThat(seen.of(runtime, "slow_drained_h2")).as("%s: h2 streams in flight at SIGTERM, finished", which).isPositive();
            }

            List<String> shutdowns = Files.readAllLines(marker);
            assertThat(shutdowns).as("one lifespan shutdown per runtime").hasSize(RUNTIMES);
            Map<String, Map<String, String>> byRuntime = new TreeMap<>();
            for (String line : shutdowns) {
                Map<String, String> fields = fields(line);
                byRuntime.put(fields.get("runtime"), fields);
            }
            assertThat(byRuntime.keySet()).as("the runtimes that shut down are the ones that served").isEqualTo(seen.counts().keySet());
            for (Map.Entry<String, Map<String, String>> entry : byRuntime.entrySet()) {
                String runtime = entry.getKey();
                Map<String, String> app = entry.getValue();
                String which = "runtime " + runtime + ", its app: " + app;
                assertThat(app.get("startups")).as("%s: lifespan startup once", which).isEqualTo("1");
                assertThat(Long.parseLong(app.get("started"))).as("%s: requests the app started = whole responses the clients got", which)
                        .isEqualTo(seen.of(runtime, "ok"));
                assertThat(app.get("http")).as("%s: every request it started, it finished", which).isEqualTo(app.get("started"));
                assertThat(app.get("in_flight")).as("%s: shutdown ran after its last request", which).isEqualTo("0");
                assertThat(Long.parseLong(app.get("ws"))).as(which).isEqualTo(seen.of(runtime, "ws_sessions"));
                assertThat(app.get("ws_close_codes")).as(which).isEqualTo("1012:" + seen.of(runtime, "ws_sessions"));
                // a message the app got may have had its echo overtaken by the 1012 close (one per session at most)
                assertThat(Long.parseLong(app.get("ws_messages"))).as(which)
                        .isBetween(seen.of(runtime, "ws_messages"), seen.of(runtime, "ws_messages") + seen.of(runtime, "ws_sessions"));
            }
            assertThat(ApxProcess.count(stderr, "Application startup complete.")).isEqualTo(RUNTIMES);
            assertThat(ApxProcess.count(stderr, "Application shutdown complete.")).isEqualTo(RUNTIMES);
            assertThat(stderr).contains("with Python " + python + ".").contains(" in " + RUNTIMES + " runtimes").contains("Finished server process");
            assertThat(stderr).contains(tls ? "apx running on https://" : "apx running on http://");
            if (tls) {
                assertThat(stderr).contains(", ALPN h2, http/1.1");
            }
            apx.assertNoJavaStackTrace();
        }
    }
}
