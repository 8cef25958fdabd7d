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
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --interpreters 2 --reload} under load: an edit moves the server to two fresh runtimes while
 * clients (half with a new connection per request, half keep-alive) keep asking; nothing is lost.
 * Every answer names its code's version and its runtime ({@code id(sys.modules)}); each runtime's
 * lifespan shutdown writes what its app started and finished.
 */
class ReloadUnderLoadIT {
    private static final int WAIT = 60;
    private static final int CLIENTS = 6;

    @TempDir
    Path tmp;

    /** The app at {@code version}: {@code GET /} answers "VERSION RUNTIME" after 10 ms, so requests are in flight at the switch. */
    private static String app(String version) {
        return """
                import asyncio
                import os
                import sys

                VERSION = "%s"
                RUNTIME = str(id(sys.modules))
                served = {"started": 0, "finished": 0}


                async def app(scope, receive, send):
                    if scope["type"] == "lifespan":
                        while True:
                            message = await receive()
                            if message["type"] == "lifespan.shutdown":
                                with open(os.environ["APX_RELOAD_MARKER"], "a") as marker:
                                    marker.write("%%s %%s %%d %%d\\n" %% (VERSION, RUNTIME, served["started"], served["finished"]))
                            await send({"type": message["type"] + ".complete"})
                            if message["type"] == "lifespan.shutdown":
                                return
                    if scope["type"] != "http":
                        return
                    served["started"] += 1
                    body = ("%%s %%s" %% (VERSION, RUNTIME)).encode()
                    await asyncio.sleep(0.01)
                    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(len(body)).encode())]})
                    await send({"type": "http.response.body", "body": body})
                    served["finished"] += 1
                """.formatted(version);
    }

    /** Clients asking until closed; answers counted per "VERSION RUNTIME", failures kept. */
    private static final class Load implements AutoCloseable {
        final Map<String, AtomicLong> answers = new ConcurrentHashMap<>();
        final List<String> failures = Collections.synchronizedList(new ArrayList<>());
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean running = true;

        Load(int port) {
            for (int i = 0; i < CLIENTS; i++) {
                boolean keepAlive = i % 2 == 1;
                // the JDK client resends an idempotent request once when its pooled connection turns out closed, as browsers do
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
                threads.add(Thread.ofPlatform().daemon().start(() -> {
                    while (running) {
                        try {
                            String body = keepAlive ? get(client, port) : WorkerLoad.get(port, "/");
                            answers.computeIfAbsent(body, b -> new AtomicLong()).incrementAndGet();
                        } catch (Exception e) {
                            failures.add(e.toString());
                        }
                    }
                }));
            }
        }

        private static String get(HttpClient client, int port) throws IOException, InterruptedException {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IOException("status " + response.statusCode() + ": " + response.body());
            }
            return response.body();
        }

        /** The runtimes that answered with {@code version}. */
        Set<String> runtimes(String version) {
            return answers.keySet().stream().filter(a -> a.startsWith(version + " ")).map(a -> a.substring(version.length() + 1))
                    .collect(Collectors.toSet());
        }

        long total(String version) {
            return answers.entrySet().stream().filter(e -> e.getKey().startsWith(version + " ")).mapToLong(e -> e.getValue().get()).sum();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            for (Thread thread : threads) {
                thread.join(30_000);
            }
        }
    }

    @Test
    void anEditUnderLoadMovesEveryConnectionToFreshRuntimesAndLosesNothing() throws Exception {
        Path source = tmp.resolve("reloadload.py");
        Files.writeString(source, app("one"));
        Path marker = tmp.resolve("lifespan-shutdown.txt");
        try (ApxProcess apx = ApxProcess.start(tmp, tmp, Map.of("APX_RELOAD_MARKER", marker.toString()), "--interpreters", "2",
                "--reload", "--reload-delay", "0.1", "--no-access-log", "--warmup", "0", "reloadload:app")) {
            apx.awaitStderr("Serving in 2 runtimes", 1, WAIT); // the first serves at once, the second joins when imported
            long worker = apx.process.children().findFirst().orElseThrow().pid();
            Load load = new Load(apx.port);
            try (load) {
                long deadline = System.nanoTime() + WAIT * 1_000_000_000L;
                while ((load.runtimes("one").size() < 2 || load.total("one") < 200) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(load.runtimes("one")).as("both runtimes serve the first code: %s", load.answers).hasSize(2);

                Files.writeString(source, app("two"));
                apx.awaitStderr("Reloaded in ", 1, WAIT);
                long twoBefore = load.total("two");
                while ((load.runtimes("two").size() < 2 || load.total("two") < twoBefore + 200) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                // the old runtimes' lifespan shutdown comes once their last connection has closed
                while (lines(marker).size() < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
            }
            Map<String, Long> answers = new TreeMap<>();
            load.answers.forEach((k, v) -> answers.put(k, v.get()));
            System.out.printf("reload under load, --interpreters 2: %s, %d failures%n", answers, load.failures.size());
            assertThat(load.failures).as("failed requests across the reload").isEmpty();
            assertThat(load.runtimes("two")).as("the new code serves in two runtimes: %s", answers).hasSize(2)
                    .doesNotContainAnyElementsOf(load.runtimes("one"));
            List<String> oldShutdowns = lines(marker);
            assertThat(oldShutdowns).as("the old runtimes' lifespan shutdown, once each, after the switch").hasSize(2)
                    .allMatch(line -> line.startsWith("one "));

            assertThat(apx.process.children().map(ProcessHandle::pid).toList()).as("no new worker process").containsExactly(worker);
            assertThat(apx.stderr()).doesNotContain("Waiting for child process");

            WorkersIT.signal(apx, "TERM");
            assertThat(apx.awaitExit(WAIT)).as(apx.stderr()).isZero();
            List<String> shutdowns = lines(marker);
            assertThat(shutdowns).as("then the new ones' at SIGTERM").hasSize(4);
            for (String line : shutdowns) {
                String[] f = line.split(" "); // VERSION RUNTIME STARTED FINISHED
                assertThat(f[3]).as("%s: every request it started, it finished", line).isEqualTo(f[2]);
                assertThat(Long.parseLong(f[2])).as("%s: requests it started = answers the clients got from it", line)
                        .isEqualTo(answers.getOrDefault(f[0] + " " + f[1], 0L));
            }
            apx.assertNoJavaStackTrace();
        }
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }
}
