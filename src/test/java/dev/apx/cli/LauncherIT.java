package dev.apx.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The launcher (bin/apx) of an installed copy (bin/ and target/apx.jar, no sources) with the AOT
 * cache that bin/apx-aot trains: the cache is used when it matches, and a missing, stale or
 * corrupt cache, or a read-only install directory, still starts and serves, with no warning; a cache
 * trained with another jar (the install moved) is left out with one line.
 */
class LauncherIT {
    private static final Path JAR = Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath();
    private static final Path REPO = JAR.getParent().getParent();
    private static final Path PYTHON = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();
    private static final Pattern RUNNING = Pattern.compile("apx running on http://127\\.0\\.0\\.1:(\\d+) ");
    private static final List<String> LAUNCHER = List.of("apx", "apx-aot", "jdk.sh", "jvm.options");

    @TempDir
    static Path trained;
    @TempDir
    Path tmp;
    private final Map<String, String> env = new TreeMap<>();
    private java.util.Set<Integer> policies; // the scheduling policy of every thread of the last server, while it served

    /** One training run for the class: an install whose target/apx.aot bin/apx-aot wrote. */
    @BeforeAll
    static void trainACache() throws Exception {
        install(trained);
        ProcessBuilder builder = new ProcessBuilder(trained.resolve("bin/apx-aot").toString(), "--python", PYTHON.toString());
        builder.environment().put("APX_AOT_ROUNDS", "1"); // a third of the requests: enough to test what the cache does
        Process training = builder.redirectErrorStream(true).redirectOutput(trained.resolve("training.txt").toFile()).start();
        assertThat(training.waitFor(180, TimeUnit.SECONDS)).as("training finished").isTrue();
        assertThat(training.exitValue()).as(Files.readString(trained.resolve("training.txt"))).isZero();
        assertThat(trained.resolve("target/apx.aot")).isNotEmptyFile();
        assertThat(trained.resolve("target")).isDirectoryNotContaining("glob:**.tmp*");
    }

    @Test
    void aMatchingCacheIsUsed() throws Exception {
        Path classes = tmp.resolve("classes.txt");
        String log = serve(trained, List.of(), "-Xlog:class+load:file=" + classes);
        assertThat(log).doesNotContain("[aot]", "AOT cache");
        // Loaded from the cache ("shared objects file"), not from the jar: the launcher passed it and the JVM took it.
        assertThat(Files.readAllLines(classes)).anyMatch(line -> line.contains("dev.apx.cli.Main ") && line.contains("shared objects file"));
    }

    /**
     * With the cache's profiles the JVM would hold the request path at C1's tier 2 for 250x the usual calls
     * (docs/startup.md, "JVM options"): the launcher passes Tier2ProfileDelayFactor=1 with the cache, not without it.
     */
    @Test
    void theCacheComesWithNoTier2ProfilingDelay() throws Exception {
        Pattern factorOne = Pattern.compile("Tier2ProfileDelayFactor\\s+= 1\\.0+ ");
        assertThat(serve(trained, List.of(), "-XX:+PrintFlagsFinal")).containsPattern(factorOne);
        Path dir = installWithCache(tmp.resolve("install"));
        Files.delete(dir.resolve("target/apx.aot"));
        assertThat(serve(dir, List.of(), "-XX:+PrintFlagsFinal")).contains("UseSerialGC").doesNotContainPattern(factorOne);
    }

    /**
     * The command line's classes come from the cache too: picocli's are Java 5 class files, which the
     * cache cannot keep once linked unless the build rewrites them (tools/UpgradeOldClassFiles.java);
     * before it, ~180 classes were read from the jar and verified at every start.
     */
    @Test
    void theCommandLineParserIsLoadedFromTheCache() throws Exception {
        Path classes = tmp.resolve("classes.txt");
        serve(trained, List.of(), "-Xlog:class+load:file=" + classes);
        List<String> loaded = Files.readAllLines(classes);
        assertThat(loaded).anyMatch(line -> line.contains("picocli.CommandLine ") && line.contains("shared objects file"));
        assertThat(loaded).anyMatch(line -> line.contains("dev.apx.cli.EnvDefaults ") && line.contains("shared objects file"));
        assertThat(loaded).noneMatch(line -> line.contains("picocli.") && line.contains("source: file:"));
    }

    /**
     * Below 4 CPUs (here: pinned to one) HotSpot would run a single C2 thread, which compiles for 7-15 s under load on a
     * shared core; bin/apx allows a second (docs/startup.md, "JVM options"), and a count in APX_JAVA_OPTS wins.
     */
    @Test
    void belowFourCpusTheJvmMayRunASecondC2ThreadUnlessApxJavaOptsSaysOtherwise() throws Exception {
        List<String> oneCpu = List.of("taskset", "-c", "0");
        assertThat(serve(trained, oneCpu, "-XX:+PrintFlagsFinal")).containsPattern("CICompilerCount\\s+= 3 ");
        assertThat(serve(trained, oneCpu, "-XX:CICompilerCount=2 -XX:+PrintFlagsFinal")).containsPattern("CICompilerCount\\s+= 2 ");
    }

    /** bin/apx starts the JVM under SCHED_BATCH (policy 3), so every thread it starts has it; APX_SCHED=normal opts out. */
    @Test
    void everyThreadRunsUnderSchedBatchUnlessApxSchedIsNormal() throws Exception {
        serve(trained, List.of(), "");
        assertThat(policies).as("policies of the server's threads").containsExactly(3);
        env.put("APX_SCHED", "normal");
        serve(trained, List.of(), "");
        assertThat(policies).containsExactly(0);
    }

    @Test
    void startsWithoutACache() throws Exception {
        Path dir = installWithCache(tmp.resolve("install"));
        Files.delete(dir.resolve("target/apx.aot"));
        assertThat(serve(dir, List.of(), "")).doesNotContain("[aot]");
    }

    @Test
    void ignoresACacheOlderThanTheJar() throws Exception {
        Path dir = installWithCache(tmp.resolve("install"));
        Files.setLastModifiedTime(dir.resolve("target/apx.jar"), FileTime.from(Instant.now().plusSeconds(60)));
        assertThat(serve(dir, List.of(), "")).doesNotContain("[aot]");
    }

    @Test
    void theJvmRejectsACacheOfAnotherJarQuietly() throws Exception {
        // Newer than the jar, so the launcher passes it; the JVM finds that the jar is not the one it was trained on.
        Path dir = installWithCache(tmp.resolve("install"));
        Files.setLastModifiedTime(dir.resolve("target/apx.jar"), FileTime.from(Instant.now().minusSeconds(60)));
        assertThat(serve(dir, List.of(), "")).doesNotContain("[aot]", "AOT cache");
    }

    /**
     * An install moved after the training, its cache and record with it: the launcher leaves the cache
     * out and says so in one line (the JVM would take it, and give apx's classes the old jar's location).
     */
    @Test
    void aMovedInstallIgnoresItsCacheInOneLineAndServes() throws Exception {
        Path first = installWithCache(tmp.resolve("first"));
        Path moved = tmp.resolve("moved");
        Files.move(first, moved);
        String log = serve(moved, List.of(), "");
        assertThat(log.lines().filter(line -> line.contains("AOT cache")).toList()).containsExactly(
                "apx: ignoring the AOT cache " + moved.resolve("target/apx.aot") + ": it was trained with "
                        + first.resolve("target/apx.jar") + ", not this jar (bin/apx-aot trains one for it)");
    }

    /**
     * A cache the JVM takes although it was trained with another copy's jar (here the training install's,
     * which still exists): its classes carry that jar's location, and apx must still load its Python
     * helpers from the jar it runs from.
     */
    @Test
    void theHelpersComeFromTheRunningJarWhateverTheCacheSays() throws Exception {
        Path dir = installWithCache(tmp.resolve("copy"));
        Path classes = tmp.resolve("classes.txt");
        Files.writeString(tmp.resolve("helpers_app.py"), """
                import _apx


                async def app(scope, receive, send):
                    if scope["type"] != "http":
                        return
                    await send({"type": "http.response.start", "status": 200, "headers": []})
                    await send({"type": "http.response.body", "body": _apx.__file__.encode()})
                """);
        String body = serveApp(dir, "-Xlog:class+load:file=" + classes, "--app-dir", tmp.toString(), "helpers_app:app");
        assertThat(Files.readAllLines(classes)).as("the JVM took the cache").anyMatch(
                line -> line.contains("dev.apx.python.Interpreter ") && line.contains("shared objects file"));
        assertThat(body).isEqualTo(dir.resolve("target/apx.jar").toRealPath() + "/python/_apx/__init__.py");
    }

    /** A heap the cache's archived objects do not fit at start (-Xmn at -Xms): the JVM would refuse to start with the cache. */
    @Test
    void aCacheTheJvmRefusesWithTheUsersHeapOptionsIsLeftOut() throws Exception {
        assertThat(serve(trained, List.of(), "-Xmn47m")).contains("apx: the JVM cannot use the AOT cache with APX_JAVA_OPTS='-Xmn47m'")
                .doesNotContain("Unable to use AOT cache");
        assertThat(serve(trained, List.of(), "-Xmn4m")).as("options the cache works with: no note")
                .doesNotContain("AOT cache");
    }

    @Test
    void aCorruptCacheIsIgnored() throws Exception {
        Path dir = installWithCache(tmp.resolve("install"));
        byte[] cache = Files.readAllBytes(dir.resolve("target/apx.aot"));
        Files.write(dir.resolve("target/apx.aot"), java.util.Arrays.copyOf(cache, 4096));
        assertThat(serve(dir, List.of(), "")).doesNotContain("[aot]");
    }

    @Test
    void aReadOnlyInstallStartsAndIsLeftUnchanged() throws Exception {
        Path dir = installWithCache(tmp.resolve("install"));
        Map<String, Long> before = listing(dir);
        // A private mount namespace where the install is read-only, even for root.
        List<String> readOnly = List.of("unshare", "-rm", "sh", "-c",
                "mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" && exec \"$@\"", dir.toString());
        Process probe = new ProcessBuilder(Stream.concat(readOnly.stream(), Stream.of("sh", "-c", "! touch \"$0\"/target/x 2>/dev/null",
                dir.toString())).toList()).redirectErrorStream(true).start();
        assumeTrue(probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0, "no private read-only mounts here (unshare -rm)");
        assertThat(serve(dir, readOnly, "")).doesNotContain("[aot]", "Read-only");
        assertThat(listing(dir)).isEqualTo(before);
    }

    /** Runs bin/apx of {@code dir} on {@code app} (after its flags); returns the body of GET / (200). */
    private String serveApp(Path dir, String javaOpts, String... app) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(dir.resolve("bin/apx").toString(), "--python", PYTHON.toString(), "--port", "0",
                "--warmup", "0"));
        command.addAll(List.of(app));
        String[] body = new String[1];
        run(command, javaOpts, response -> body[0] = response.body());
        return body[0];
    }

    /** Runs bin/apx of {@code dir} (behind {@code prefix}) on the built-in app; GET / must answer; returns stdout and stderr (the JVM logs to stdout). */
    private String serve(Path dir, List<String> prefix, String javaOpts) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(dir.resolve("bin/apx").toString(), "--python", PYTHON.toString(), "--port", "0", "--warmup", "0", "_apx._hello:app"));
        return run(command, javaOpts, response -> assertThat(response.body()).isEqualTo("Hello, world!"));
    }

    private String run(List<String> command, String javaOpts, java.util.function.Consumer<HttpResponse<String>> check)
            throws IOException, InterruptedException {
        Path stderr = tmp.resolve("stderr-" + System.nanoTime() + ".txt");
        Path stdout = tmp.resolve("stdout-" + System.nanoTime() + ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(tmp.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        builder.environment().put("APX_JAVA_OPTS", javaOpts);
        builder.environment().remove("VIRTUAL_ENV");
        builder.environment().putAll(env);
        Process process = builder.start();
        try {
            int port = awaitPort(process, stderr);
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            check.accept(response);
            policies = SchedulingPolicy.ofThreads(process.pid());
            process.destroy();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("apx exits on SIGTERM").isTrue();
            assertThat(process.exitValue()).isZero();
            return Files.readString(stdout) + Files.readString(stderr);
        } finally {
            process.destroyForcibly();
        }
    }

    private static int awaitPort(Process process, Path stderr) throws IOException, InterruptedException {
        for (int i = 0; i < 1200; i++) {
            Matcher running = RUNNING.matcher(Files.readString(stderr));
            if (running.find()) {
                return Integer.parseInt(running.group(1));
            }
            if (!process.isAlive()) {
                fail("apx exited early: %s", Files.readString(stderr));
            }
            Thread.sleep(50);
        }
        return fail("apx did not start: " + Files.readString(stderr));
    }

    /** The launcher scripts and the jar, as an installed copy without sources holds them. */
    private static void install(Path dir) throws IOException {
        Files.createDirectories(dir.resolve("bin"));
        Files.createDirectories(dir.resolve("target"));
        for (String name : LAUNCHER) {
            Files.copy(REPO.resolve("bin").resolve(name), dir.resolve("bin").resolve(name), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        }
        Files.copy(JAR, dir.resolve("target/apx.jar"), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    }

    /**
     * A copy of the trained install (the jar keeps its timestamp, so the cache still matches it), its
     * record of the training jar naming this copy's jar, as if the cache had been trained here.
     */
    private static Path installWithCache(Path dir) throws IOException {
        install(dir);
        Files.copy(trained.resolve("target/apx.jar"), dir.resolve("target/apx.jar"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(trained.resolve("target/apx.aot"), dir.resolve("target/apx.aot"), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        recordTrainingJar(dir);
        return dir;
    }

    /** What bin/apx-aot writes beside the cache: the jar it trained with (here: {@code dir}'s). */
    private static void recordTrainingJar(Path dir) throws IOException {
        Files.writeString(dir.resolve("target/apx.aot.jar"), dir.resolve("target/apx.jar").toRealPath() + "\n");
    }

    private static Map<String, Long> listing(Path dir) throws IOException {
        Map<String, Long> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path file : all.toList()) {
                files.put(dir.relativize(file).toString(), Files.getLastModifiedTime(file).toMillis());
            }
        }
        return files;
    }
}
