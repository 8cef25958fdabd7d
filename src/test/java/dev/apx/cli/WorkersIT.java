package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.apx.cli.PrometheusScrape.sumOverWorkers;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Process model: {@code --workers N} runs a supervisor above N worker JVMs on one socket
 * ({@code apxtest.worker_apps}). Signals as Uvicorn's supervisor takes them, under steady load.
 * Each JVM start takes 1-2 s here (more on a loaded machine): the waits are generous, the runs short.
 */
class WorkersIT {
    private static final String STARTED = "Application startup complete.";
    private static final int WAIT = 90;

    @TempDir
    Path tmp;

    /** With --metrics: one endpoint, the supervisor's, shows every worker by its slot, the same slots across restarts. */
    @Test
    void rollingRestartAddAndRemoveWorkersAndReplaceAKilledOneUnderLoad() throws Exception {
        int metricsPort = freePort();
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--no-access-log", "--workers", "2", "--metrics", "--metrics-port",
                String.valueOf(metricsPort), "apxtest.worker_apps:app")) {
            apx.awaitStderr(STARTED, 2, WAIT);
            assertThat(apx.stderr()).contains("Started parent process [" + apx.process.pid() + "]",
                    "Metrics of all workers on http://127.0.0.1:" + metricsPort + "/metrics");
            Set<Long> first = children(apx, 2);
            int sent = 20;
            for (int i = 0; i < sent; i++) {
                assertThat(WorkerLoad.get(apx.port, "/")).isEqualTo("ok");
            }
            Map<String, Double> counted = PrometheusScrape.scrape("127.0.0.1", metricsPort,
                    s -> sumOverWorkers(s, "apx_http_requests_total", "method=GET,status=2xx,") >= sent);
            assertThat(sumOverWorkers(counted, "apx_http_requests_total", "method=GET,status=2xx,"))
                    .as("the requests sent, summed over the workers: %s", counted).isEqualTo(sent);
            assertThat(counted).containsKeys("apx_http_connections_open{worker=0}", "apx_http_connections_open{worker=1}",
                    "jvm_threads_current{worker=0}", "jvm_threads_current{worker=1}")
                    .containsEntry("apx_supervisor_workers_alive{}", 2.0)
                    .containsEntry("apx_supervisor_worker_scrape_ok{worker=0}", 1.0).containsEntry("apx_supervisor_worker_scrape_ok{worker=1}", 1.0)
                    .containsEntry("apx_supervisor_worker_restarts_total{reason=died}", 0.0);
            try (WorkerLoad load = new WorkerLoad(apx.port, 8)) {
                load.awaitMore(100, WAIT);
                assertThat(load.pids()).as("both workers take connections from the one socket").isEqualTo(first);

                signal(apx, "HUP"); // each worker loads the app again into fresh runtimes of its own, one after the other
                apx.awaitStderr("Received SIGHUP, restarting processes.", 1, WAIT);
                apx.awaitStderr("Reloaded in ", 2, WAIT);
                apx.awaitStderr(STARTED, 4, WAIT); // lifespan startup in each fresh runtime
                load.awaitMore(100, WAIT);
                Set<Long> second = children(apx, 2);
                assertThat(second).as("the same worker processes, warm: no new JVM").isEqualTo(first);
                assertThat(apx.stderr()).doesNotContain("Waiting for child process [");
                assertThat(PrometheusScrape.scrape("127.0.0.1", metricsPort, bothWorkersScraped().and(restarts("reload", 2))))
                        .as("each worker's reload counted in its slot").containsEntry("apx_supervisor_worker_restarts_total{reason=reload}", 2.0)
                        .containsEntry("apx_supervisor_worker_scrape_ok{worker=0}", 1.0).containsEntry("apx_supervisor_worker_scrape_ok{worker=1}", 1.0)
                        .doesNotContainKey("apx_supervisor_worker_scrape_ok{worker=2}");

                signal(apx, "TTIN");
                apx.awaitStderr("Received SIGTTIN, increasing the number of processes.", 1, WAIT);
                apx.awaitStderr(STARTED, 5, WAIT); // 2 at start, 2 in the reloaded runtimes, 1 in the new worker
                assertThat(children(apx, 3)).containsAll(second);
                signal(apx, "TTOU");
                apx.awaitStderr("Received SIGTTOU, decreasing number of processes.", 1, WAIT);
                apx.awaitStderr("Waiting for child process [", 1, WAIT);
                assertThat(children(apx, 2)).isEqualTo(second);
                load.awaitMore(100, WAIT);
                assertThat(load.failures).as("no request fails across SIGHUP, SIGTTIN and SIGTTOU").isEmpty();

                long victim = second.iterator().next();
                ProcessHandle.of(victim).orElseThrow().destroyForcibly(); // SIGKILL
                apx.awaitStderr("Child process [" + victim + "] died", 1, WAIT);
                apx.awaitStderr(STARTED, 6, WAIT);
                Set<Long> third = children(apx, 2);
                assertThat(third).doesNotContain(victim);
                long replacement = third.stream().filter(pid -> !second.contains(pid)).findFirst().orElseThrow();
                // the shared queue hands new connections to whichever worker accepts first, and the warm
                // survivor often wins for a while: wait until the replacement has served some
                for (long deadline = System.nanoTime() + WAIT * 1_000_000_000L;
                     !load.perPid.containsKey(replacement) && System.nanoTime() < deadline; ) {
                    Thread.sleep(50);
                }
                assertThat(load.perPid.get(replacement)).as("the replacement serves").isNotNull();
                assertThat(load.failures.size()).as("at most the requests in flight on the killed worker fail: %s", load.failures)
                        .isLessThanOrEqualTo(8);
                Map<String, Double> afterKill = PrometheusScrape.scrape("127.0.0.1", metricsPort, bothWorkersScraped().and(restarts("died", 1)));
                assertThat(afterKill).containsEntry("apx_supervisor_worker_restarts_total{reason=died}", 1.0)
                        .containsEntry("apx_supervisor_worker_restarts_total{reason=reload}", 2.0)
                        .containsEntry("apx_supervisor_workers_alive{}", 2.0)
                        .containsEntry("apx_supervisor_worker_scrape_ok{worker=0}", 1.0).containsEntry("apx_supervisor_worker_scrape_ok{worker=1}", 1.0);
            }
            apx.process.destroy(); // SIGTERM: every worker drains, then the supervisor exits 0
            assertThat(apx.awaitExit(WAIT)).isZero();
            assertThat(apx.stderr()).contains("Received SIGTERM, exiting.", "Stopping parent process [" + apx.process.pid() + "]")
                    .doesNotContain("failed to start");
            apx.assertNoJavaStackTrace();
        }
    }

    /**
     * {@code --workers 2 --interpreters 2}, SIGHUP twice under load. Each time, each worker loads the app into two fresh
     * runtimes of its own process and the old two drain: every request gets its 200, the pids stay, the old runtimes run their
     * lifespan shutdown and serve nothing more, each worker again answers from two runtimes, both new; at the end each runtime's
     * app started exactly as many requests as the clients got answers from it, and finished them all.
     * Answers and the app's lifespan lines ({@code $APX_WORKERS_MARKER}) name the worker's pid and the runtime's {@code id(sys.modules)}.
     */
    @Test
    void sighupUnderLoadReplacesBothRuntimesOfEachWorkerInsideItsProcessTwice() throws Exception {
        Path marker = tmp.resolve("lifespan.txt");
        long t0 = System.nanoTime();
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_WORKERS_MARKER", marker.toString()), "--no-access-log", "--workers", "2",
                "--interpreters", "2", "apxtest.worker_apps:app")) {
            apx.awaitStderr("Serving in 2 runtimes", 2, WAIT); // each worker, once its second runtime joined
            Set<Long> workers = children(apx, 2);
            Set<String> retired = new HashSet<>(); // "PID RUNTIME" of every runtime replaced so far
            WorkerLoad load = new WorkerLoad(apx.port, 4, "/who");
            try (load) {
                Set<String> serving = twoRuntimesEach(load, workers, retired, "at start");
                System.out.printf("serving in 2 x 2 runtimes at %.1f s%n", (System.nanoTime() - t0) / 1e9);
                for (int reload = 1; reload <= 2; reload++) {
                    signal(apx, "HUP");
                    apx.awaitStderr("Received SIGHUP, restarting processes.", reload, WAIT);
                    apx.awaitStderr("the new code serves in 2 fresh runtime(s)", 2 * reload, WAIT); // "Reloaded in N ms: ..." of each worker
                    awaitLines(marker, "shutdown ", 4 * reload); // the old runtimes' lifespan shutdown, once their connections closed
                    assertThat(lines(marker, "shutdown ").subList(4 * (reload - 1), 4 * reload)).as("SIGHUP %d: the runtimes shut down", reload)
                            .containsExactlyInAnyOrderElementsOf(serving);
                    retired.addAll(serving);
                    serving = twoRuntimesEach(load, workers, retired, "after SIGHUP " + reload);
                    assertThat(children(apx, 2)).as("SIGHUP %d: the same worker processes, no new JVM", reload).isEqualTo(workers);
                    assertThat(ApxProcess.count(apx.stderr(), STARTED)).as("lifespan startup in each fresh runtime").isEqualTo(4 + 4L * reload);
                    assertThat(ApxProcess.count(apx.stderr(), "Application shutdown complete.")).isEqualTo(4L * reload);
                    System.out.printf("SIGHUP %d done at %.1f s%n", reload, (System.nanoTime() - t0) / 1e9);
                }
                load.awaitMore(100, WAIT);
                Map<String, Long> fromRetired = answers(load, retired);
                load.awaitMore(200, WAIT);
                assertThat(answers(load, retired)).as("the replaced runtimes serve nothing more").isEqualTo(fromRetired);
            }
            Map<String, Long> answers = answers(load, load.perAnswer.keySet());
            System.out.printf("SIGHUP twice, --workers 2 --interpreters 2: %d answers, %s; %d failures%n", load.ok.get(), answers, load.failures.size());
            assertThat(load.failures).as("failed requests across two SIGHUPs").isEmpty();
            assertThat(apx.stderr()).doesNotContain("Waiting for child process [", "Child process [");

            signal(apx, "TERM");
            assertThat(apx.awaitExit(WAIT)).as(apx.stderr()).isZero();
            System.out.printf("exited at %.1f s%n", (System.nanoTime() - t0) / 1e9);
            List<String> shutdowns = lines(marker, "shutdown ");
            assertThat(shutdowns).as("every runtime's lifespan shutdown, once: 4 per generation").hasSize(12);
            assertThat(lines(marker, "startup ")).containsExactlyInAnyOrderElementsOf(shutdowns).hasSize(12);
            for (String line : lines(marker, "shutdown", true)) { // PID RUNTIME STARTED FINISHED
                String[] f = line.split(" ");
                String runtime = f[1] + " " + f[2];
                assertThat(f[4]).as("%s: every request it started, it finished", line).isEqualTo(f[3]);
                assertThat(Long.parseLong(f[3])).as("%s: requests it started = answers the clients got from it", line)
                        .isEqualTo(answers.getOrDefault(runtime, 0L));
            }
            apx.assertNoJavaStackTrace();
        }
    }

    /** Waits until each worker answered from two runtimes not in {@code retired}; those four ("PID RUNTIME"), no more. */
    private static Set<String> twoRuntimesEach(WorkerLoad load, Set<Long> workers, Set<String> retired, String when) throws InterruptedException {
        Map<Long, Set<String>> byWorker = Map.of();
        for (long deadline = System.nanoTime() + WAIT * 1_000_000_000L; System.nanoTime() < deadline; Thread.sleep(20)) {
            byWorker = new java.util.TreeMap<>();
            for (String answer : load.perAnswer.keySet()) {
                if (!retired.contains(answer)) {
                    byWorker.computeIfAbsent(Long.parseLong(answer.split(" ")[0]), pid -> new HashSet<>()).add(answer);
                }
            }
            if (byWorker.keySet().equals(workers) && byWorker.values().stream().allMatch(runtimes -> runtimes.size() >= 2)) {
                break;
            }
        }
        assertThat(byWorker).as("%s: the runtimes each worker answers from (failures: %s)", when, load.failures).hasSize(2)
                .containsOnlyKeys(workers).allSatisfy((pid, runtimes) -> assertThat(runtimes).as("worker %d", pid).hasSize(2));
        Set<String> all = new HashSet<>();
        byWorker.values().forEach(all::addAll);
        return all;
    }

    private static Map<String, Long> answers(WorkerLoad load, Set<String> runtimes) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        for (String runtime : runtimes) {
            java.util.concurrent.atomic.AtomicLong n = load.perAnswer.get(runtime);
            counts.put(runtime, n == null ? 0 : n.get());
        }
        return counts;
    }

    /** The marker's lines of one kind as "PID RUNTIME" (or whole, with {@code whole}). */
    private static List<String> lines(Path marker, String kind, boolean whole) throws IOException {
        if (!Files.exists(marker)) {
            return List.of();
        }
        return Files.readAllLines(marker).stream().filter(l -> l.startsWith(kind))
                .map(l -> whole ? l : String.join(" ", Arrays.asList(l.split(" ")).subList(1, 3))).toList();
    }

    private static List<String> lines(Path marker, String kind) throws IOException {
        return lines(marker, kind, false);
    }

    private static void awaitLines(Path marker, String kind, int count) throws IOException, InterruptedException {
        for (long deadline = System.nanoTime() + WAIT * 1_000_000_000L; lines(marker, kind).size() < count; Thread.sleep(20)) {
            assertThat(System.nanoTime()).as("%d lines '%s' in %s", count, kind, lines(marker, kind)).isLessThan(deadline);
        }
    }

    @Test
    void workersPastTheirRequestLimitAreReplacedWithoutAFailedRequest() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--no-access-log", "--workers", "2",
                "--limit-max-requests", "150", "--limit-max-requests-jitter", "50", "apxtest.worker_apps:app")) {
            apx.awaitStderr(STARTED, 2, WAIT);
            Set<Long> first = children(apx, 2);
            try (WorkerLoad load = new WorkerLoad(apx.port, 6)) {
                apx.awaitStderr("reached its request limit; replacing it.", 2, WAIT);
                apx.awaitStderr(STARTED, 4, WAIT);
                apx.awaitStderr("Waiting for child process [", 2, WAIT);
                load.awaitMore(100, WAIT);
                assertThat(load.failures).as("recycling fails no request").isEmpty();
                assertThat(load.pids()).containsAll(first).hasSizeGreaterThan(2);
                for (long pid : first) {
                    long served = load.perPid.get(pid).get();
                    // each stopped taking requests soon after its limit (150..200) once its replacement served
                    assertThat(served).as("requests served by the first worker %d", pid).isGreaterThanOrEqualTo(150);
                }
            }
            assertThat(apx.stderr()).containsPattern("Maximum request limit of (1[5-9][0-9]|200) exceeded");
            apx.process.destroy();
            assertThat(apx.awaitExit(WAIT)).isZero();
        }
    }

    @Test
    void aWorkerWhoseEventLoopIsBlockedIsNamedKilledAndReplaced() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--no-access-log", "--workers", "2", "--timeout-worker-healthcheck", "2",
                "apxtest.worker_apps:app")) {
            apx.awaitStderr(STARTED, 2, WAIT);
            Set<Long> first = children(apx, 2);
            Thread blocker = Thread.ofPlatform().daemon().start(() -> {
                try {
                    WorkerLoad.get(apx.port, "/block?s=120");
                } catch (IOException expected) {
                    // its worker is killed
                }
            });
            apx.awaitStderr("did not answer the health check within 2 s", 1, WAIT);
            Matcher named = Pattern.compile("Child process \\[(\\d+)] did not answer the health check").matcher(apx.stderr());
            assertThat(named.find()).isTrue();
            long blocked = Long.parseLong(named.group(1));
            assertThat(first).contains(blocked);
            apx.awaitStderr("Child process [" + blocked + "] died", 1, WAIT);
            apx.awaitStderr(STARTED, 3, WAIT);
            blocker.join(WAIT * 1000L);
            assertThat(children(apx, 2)).doesNotContain(blocked);
            assertThat(WorkerLoad.get(apx.port, "/")).isEqualTo("ok");
            apx.process.destroy();
            assertThat(apx.awaitExit(WAIT)).isZero();
        }
    }

    @Test
    void aWorkerThatCannotImportTheAppStopsTheSupervisorWithItsTracebackShownOnce() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--workers", "2", "apxtest.broken_app:app")) {
            assertThat(apx.awaitExit(WAIT)).isEqualTo(3);
            String stderr = apx.stderr();
            assertThat(ApxProcess.count(stderr, "No module named 'module_that_does_not_exist_apx'")).as(stderr).isGreaterThanOrEqualTo(1);
            assertThat(ApxProcess.count(stderr, "Traceback (most recent call last)")).as(stderr).isEqualTo(1);
            assertThat(stderr).contains("failed to start, stopping the parent process.").doesNotContain("died");
        }
    }

    private static java.util.function.Predicate<Map<String, Double>> bothWorkersScraped() {
        return s -> s.getOrDefault("apx_supervisor_worker_scrape_ok{worker=0}", 0.0) == 1 && s.getOrDefault("apx_supervisor_worker_scrape_ok{worker=1}", 0.0) == 1;
    }

    private static java.util.function.Predicate<Map<String, Double>> restarts(String reason, double count) {
        return s -> s.getOrDefault("apx_supervisor_worker_restarts_total{reason=" + reason + "}", 0.0) >= count;
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** The worker pids once there are {@code count} of them (a replaced worker may take a moment to exit). */
    private static Set<Long> children(ApxProcess apx, int count) throws InterruptedException {
        Set<Long> pids = Set.of();
        for (long deadline = System.nanoTime() + WAIT * 1_000_000_000L; System.nanoTime() < deadline; Thread.sleep(50)) {
            pids = new HashSet<>();
            for (ProcessHandle child : apx.process.children().filter(ProcessHandle::isAlive).toList()) {
                pids.add(child.pid());
            }
            if (pids.size() == count) {
                return pids;
            }
        }
        throw new AssertionError("expected " + count + " workers, found " + pids);
    }

    static void signal(ApxProcess apx, String name) throws IOException, InterruptedException {
        assertThat(new ProcessBuilder("kill", "-" + name, String.valueOf(apx.process.pid())).start().waitFor()).isZero();
    }
}
