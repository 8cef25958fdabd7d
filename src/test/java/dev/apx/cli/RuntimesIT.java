package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code --interpreters 2}: one process, one server, two CPython runtimes, each with its own app
 * import, module globals, lifespan and event loop; a connection stays on the runtime it was given.
 */
class RuntimesIT {
    private static final Pattern WHO = Pattern.compile("\"pid\":(\\d+),\"runtime\":(\\d+),\"served\":(\\d+),\"lifespan\":(true|false)");

    @TempDir
    Path tmp;

    record Who(long pid, long runtime, long served, boolean lifespan) {
        static Who of(String json) {
            Matcher m = WHO.matcher(json);
            assertThat(m.find()).as(json).isTrue();
            return new Who(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)), Boolean.parseBoolean(m.group(4)));
        }
    }

    @Test
    void twoRuntimesServeRequestsAndWebSocketsEachConnectionStayingOnOne() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--interpreters", "2", "apxtest.runtimes_app:app")) {
            apx.awaitStderr("Serving in 2 runtimes", 30); // the first serves as soon as it is up, the second joins when ready
            URI who = URI.create("http://127.0.0.1:" + apx.port + "/who");
            List<List<Who>> connections = new ArrayList<>();
            for (int c = 0; c < 2; c++) { // one client each: its keep-alive requests on one connection
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                List<Who> answers = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    HttpResponse<String> response = client.send(HttpRequest.newBuilder(who).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(response.statusCode()).isEqualTo(200);
                    answers.add(Who.of(response.body()));
                }
                connections.add(answers);
                // apx's helpers come from the jar: each runtime keeps only python/'s entries of its
                // directory, not all ~12,700 (~6.5 MB a runtime)
                String jar = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apx.port + "/jar-directory")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                assertThat(jar).contains("\"runtime\":" + answers.getFirst().runtime() + ",").contains("\"outside_python\":0}")
                        .doesNotContain("\"entries\":0,");
            }
            Set<Long> runtimes = new HashSet<>();
            for (List<Who> answers : connections) {
                assertThat(answers).extracting(Who::runtime).as("one connection, one runtime").containsOnly(answers.getFirst().runtime());
                assertThat(answers).extracting(Who::served).as("that runtime's own counter").isSorted().doesNotHaveDuplicates();
                assertThat(answers).allMatch(Who::lifespan);
                assertThat(answers).extracting(Who::pid).containsOnly(apx.process.pid());
                runtimes.add(answers.getFirst().runtime());
            }
            assertThat(runtimes).as("the two connections went to the two runtimes").hasSize(2);

            Set<Long> webSocketRuntimes = new HashSet<>();
            for (int c = 0; c < 2; c++) {
                Who answer = Who.of(webSocket(URI.create("ws://127.0.0.1:" + apx.port + "/ws"), "hi " + c));
                assertThat(answer.lifespan()).isTrue();
                webSocketRuntimes.add(answer.runtime());
            }
            assertThat(webSocketRuntimes).isEqualTo(runtimes);

            stopsWithEachLifespanOnce(apx, 2);
            assertThat(apx.stderr()).contains("Finished server process");
        }
    }

    @Test
    void theFirstRuntimeServesWhileTheOthersStillStartAndEachJoinsWhenReady() throws Exception {
        Path release = tmp.resolve("release");
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_TEST_RELEASE", release.toString()),
                "--interpreters", "3", "apxtest.slow_later_runtime_app:app")) {
            Set<String> early = new HashSet<>();
            for (int i = 0; i < 3; i++) { // one connection each
                early.add(WorkerLoad.get(apx.port, "/"));
            }
            assertThat(early).as("runtimes 1 and 2 are still importing: the first takes every connection").hasSize(1);
            assertThat(apx.stderr()).doesNotContain("Serving in 3 runtimes");

            Files.createFile(release);
            apx.awaitStderr("Serving in 3 runtimes", 30);
            Set<String> joined = new HashSet<>();
            for (int i = 0; i < 3; i++) { // ties between idle runtimes go in turn
                joined.add(WorkerLoad.get(apx.port, "/"));
            }
            assertThat(joined).as("then all three serve").hasSize(3).containsAll(early);

            stopsWithEachLifespanOnce(apx, 3);
        }
    }

    @Test
    void theIdleWarmUpWaitsUntilEveryRuntimeServes() throws Exception {
        // on a small machine the warm-up would take the cores the other runtimes' imports need
        Path release = tmp.resolve("release");
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_TEST_RELEASE", release.toString()),
                "--interpreters", "2", "--warmup", "300", "--log-level", "debug", "apxtest.slow_later_runtime_app:app")) {
            assertThat(WorkerLoad.get(apx.port, "/")).as("the first runtime serves").isNotEmpty();
            Thread.sleep(5000); // alone, 300 warm-up requests take well under a second
            assertThat(apx.stderr()).as("no warm-up while runtime 1 still imports").doesNotContain("warm-up:")
                    .doesNotContain("Serving in 2 runtimes");

            Files.createFile(release);
            apx.awaitStderr("warm-up: 300 of 300 requests answered", 60);
            String log = apx.stderr();
            assertThat(log.indexOf("Serving in 2 runtimes")).as("every runtime served before the warm-up ended").isPositive()
                    .isLessThan(log.indexOf("warm-up: 300 of 300"));
            assertThat(log).contains("while the server was idle");
            stopsWithEachLifespanOnce(apx, 2);
        }
    }

    @Test
    void aStopWhileRuntimesStillStartEndsAtOnceWithTheServingOneShutDown() throws Exception {
        Path release = tmp.resolve("never");
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_TEST_RELEASE", release.toString()),
                "--interpreters", "2", "apxtest.slow_later_runtime_app:app")) {
            assertThat(WorkerLoad.get(apx.port, "/")).isNotEmpty();
            long stopped = System.nanoTime();
            stopsWithEachLifespanOnce(apx, 1);
            assertThat((System.nanoTime() - stopped) / 1_000_000_000.0).as("a runtime stuck in its import is not waited for long")
                    .isLessThan(15);
            assertThat(apx.stderr()).contains("1 runtime(s) still starting are left behind").doesNotContain("Serving in 2 runtimes");
        }
    }

    /** SIGTERM: exit 0, lifespan startup and shutdown {@code runtimes} times each, no Java stack trace. */
    private static void stopsWithEachLifespanOnce(ApxProcess apx, int runtimes) throws Exception {
        WorkersIT.signal(apx, "TERM");
        assertThat(apx.awaitExit(30)).as(apx.stderr()).isZero();
        assertThat(ApxProcess.count(apx.stderr(), "Application startup complete.")).isEqualTo(runtimes);
        assertThat(ApxProcess.count(apx.stderr(), "Application shutdown complete.")).isEqualTo(runtimes);
        apx.assertNoJavaStackTrace();
    }

    /** Sends {@code text} on a new WebSocket and returns the first message back. */
    private static String webSocket(URI uri, String text) throws Exception {
        CompletableFuture<String> first = new CompletableFuture<>();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder().buildAsync(uri, new WebSocket.Listener() {
            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                first.complete(data.toString());
                return null;
            }
        }).get(10, TimeUnit.SECONDS);
        ws.sendText(text, true).get(10, TimeUnit.SECONDS);
        String answer = first.get(10, TimeUnit.SECONDS);
        assertThat(answer).contains("\"echo\":\"" + text + "\"");
        return answer;
    }

    @Test
    void moreInterpretersThanNamespacesIsRefusedInOneLine() throws Exception {
        Finished finished = run("--interpreters", "17", "apxtest.runtimes_app:app");
        assertThat(finished.exitCode()).as("a bad flag value").isEqualTo(2);
        assertThat(finished.output().strip()).isEqualTo("apx: error: --interpreters must be 1 to 16 (glibc has 16 link-map namespaces), got 17");
    }

    @Test
    void anAppThatCannotLoadTwiceInOneProcessIsNamedInOneLine() throws Exception {
        // runtime 1 imports beside runtime 0 on a machine of 2 cores or more, after it on one: either copy may lose
        Finished finished = run("--interpreters", "2", "apxtest.once_per_process_app:app");
        assertThat(finished.exitCode()).as(finished.output()).isEqualTo(1);
        List<String> errors = finished.output().lines().filter(line -> line.startsWith("apx: error: ")).toList();
        assertThat(errors).as(finished.output()).hasSize(1);
        Matcher told = Pattern.compile("apx: error: cannot load the app in runtime ([01]) of --interpreters: ImportError: once_per_process_app"
                + " is already loaded in this process \\(it imported in runtime ([01]), so something it loads \\(a C extension or a"
                + " library\\) cannot be loaded twice in one process; use --workers instead\\)").matcher(errors.getFirst());
        assertThat(told.matches()).as(errors.getFirst()).isTrue();
        assertThat(told.group(1)).as("the runtime that failed is not the one that loaded it").isNotEqualTo(told.group(2));
        assertThat(finished.output()).contains("Traceback (most recent call last)").doesNotContain("Exception in thread");
    }

    @Test
    void whenTheFirstRuntimeLosesTheRaceToALaterCopyTheLineNamesBoth() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "runtime 1 imports beside runtime 0 only with a core to spare");
        Finished finished = run("--interpreters", "2", "apxtest.first_copy_fails_app:app");
        assertThat(finished.exitCode()).as(finished.output()).isEqualTo(1);
        assertThat(finished.output().lines().filter(line -> line.startsWith("apx: error: ")).toList()).containsExactly(
                "apx: error: cannot load the app in runtime 0 of --interpreters: ImportError: first_copy_fails_app lost the race in"
                        + " this runtime (it imported in runtime 1, so something it loads (a C extension or a library) cannot be"
                        + " loaded twice in one process; use --workers instead)");
        assertThat(finished.output()).as("runtime 1 had started its app: it is shut down before the process ends")
                .contains("Application shutdown complete.").doesNotContain("Exception in thread");
    }

    @Test
    void runtimesStartingWhileTheFirstCreatesPthreadKeysTakeNoneOfItsKeys() throws Exception {
        // the first runtime creates keys in the base libc for 3 s from its import on, while the others reserve theirs there
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--interpreters", "4", "apxtest.key_hungry_app:app")) {
            apx.awaitStderr("Serving in 4 runtimes", 60);
            List<String> answers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                answers.add(WorkerLoad.get(apx.port, "/"));
            }
            assertThat(answers.stream().map(answer -> answer.split(" ")[0]).distinct()).hasSize(4);
            String first = answers.stream().filter(answer -> !answer.endsWith(" None")).findFirst().orElseThrow();
            assertThat(first).as("every pthread_key_create of the first runtime succeeded").endsWith(", 'failed': 0}");
            assertThat(Long.parseLong(first.replaceAll(".*'created': (\\d+).*", "$1"))).isGreaterThan(1000);
            stopsWithEachLifespanOnce(apx, 4);
        }
    }

    @Test
    void everyRuntimeStartsWithTheProcessEnvironmentNotWhatAnotherRuntimesImportSetThere() throws Exception {
        Path envFile = Files.writeString(tmp.resolve("app.env"), "APX_TEST_FROM_ENV_FILE=from the file\n");
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_TEST_FROM_PARENT", "from the parent"),
                "--interpreters", "3", "--env-file", envFile.toString(), "apxtest.environment_app:app")) {
            apx.awaitStderr("Serving in 3 runtimes", 30);
            Set<String> answers = new HashSet<>();
            for (int i = 0; i < 3; i++) { // ties between idle runtimes go in turn: one new connection each
                answers.add(WorkerLoad.get(apx.port, "/"));
            }
            assertThat(answers).as("three runtimes answered").hasSize(3);
            for (String answer : answers) { // as Uvicorn's workers: what an app's import sets stays in its own runtime
                assertThat(answer).contains("\"from_parent\": \"from the parent\"", "\"from_env_file\": \"from the file\"",
                        "\"set_by_an_import\": null");
            }
            stopsWithEachLifespanOnce(apx, 3);
        }
    }

    private record Finished(int exitCode, String output) {
    }

    /** apx with {@code args} on the test apps, to its exit (stdout and stderr together). */
    private static Finished run(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-jar", Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath().toString(),
                "--python", Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath().toString(),
                "--app-dir", Path.of("target/test-classes/python").toAbsolutePath().toString(), "--port", "0"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Finished(process.exitValue(), output);
    }
}
