package dev.apx.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs the packaged {@code apx.jar} as a user would, in a subprocess whose environment each test
 * sets, and checks the exit code and the one-line {@code apx: error: ...} message.
 */
class CommandLineIT {
    private static final long TIMEOUT_SECONDS = 60;
    private static final String JAVA = ProcessHandle.current().info().command().orElseThrow();
    private static final Path JAR = Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath();
    private static final Path REPO = JAR.getParent().getParent();
    private static final Path EXAMPLES = REPO.resolve("examples");
    private static final Path PYENV_VERSIONS = Path.of(System.getenv().getOrDefault("PYENV_ROOT", System.getProperty("user.home") + "/.pyenv"), "versions");
    private static final Pattern JAVA_STACK_FRAME = Pattern.compile("(?m)^\\s+at [\\w$.]+\\(");

    @TempDir
    Path tmp;

    record Result(int exitCode, String stdout, String stderr) {
        /** The lines of stderr that start with {@code apx: error: }. */
        List<String> errorLines() {
            return stderr.lines().filter(line -> line.startsWith("apx: error: ")).toList();
        }
    }

    @BeforeAll
    static void packagedJarAndVenvsExist() {
        assertThat(JAR).as("the packaged jar (run through `mvn verify`)").isRegularFile();
        for (String minor : List.of("3.11", "3.12", "3.13")) {
            assertThat(python(minor)).as("venv Python %s (run bin/venvs)", minor).isExecutable();
        }
    }

    @ParameterizedTest(name = "Python {0}")
    @ValueSource(strings = {"3.11", "3.12", "3.13"})
    void servesTheExampleAppWithEachSupportedPythonAndStopsCleanlyOnSigterm(String minor) throws Exception {
        Served served = serve(Map.of(), "--python", python(minor).toString(), "--app-dir", EXAMPLES.toString(), "--port", "0", "hello:app");

        assertThat(served.get("/")).isEqualTo("Hello, world!");
        Result result = served.stop();

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stderr())
                .contains("apx: loaded hello:app = <function app at ")
                .contains(" with Python " + minor + ".")
                .contains("libpython" + minor)
                .contains("INFO:     Started server process [")
                .contains("INFO:     Waiting for application startup.")
                .contains("INFO:     Application startup complete.")
                .containsPattern("INFO:     apx running on http://127\\.0\\.0\\.1:\\d+ \\(Press CTRL\\+C to quit\\)")
                .contains("INFO:     Shutting down")
                .contains("INFO:     Finished server process [")
                .doesNotContain("apx: error");
        assertThat(result.stdout()).containsPattern("INFO:     127\\.0\\.0\\.1:\\d+ - \"GET / HTTP/1\\.1\" 200");
        assertNoJavaStackTrace(result);
    }

    @Test
    void usesVirtualEnvWhenNoPythonIsGiven() throws Exception {
        Path venv = python("3.12").getParent().getParent();

        Served served = serve(Map.of("VIRTUAL_ENV", venv.toString(), "PATH", "/usr/bin:/bin", "APX_PORT", "0"),
                "--app-dir", EXAMPLES.toString(), "--no-access-log", "hello:app");
        assertThat(served.get("/")).isEqualTo("Hello, world!");
        Result result = served.stop();

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stderr()).contains("apx: loaded hello:app = ").contains(" with Python 3.12.");
        assertThat(result.stdout()).doesNotContain("GET /");
        assertNoJavaStackTrace(result);
    }

    @Test
    void honoursFactoryEnvFileRootPathAndFinishesInFlightRequestsOnSigterm() throws Exception {
        Path appDir = Files.createDirectory(tmp.resolve("options"));
        Files.writeString(appDir.resolve("factoryapp.py"), """
                import asyncio, os

                def create():
                    async def app(scope, receive, send):
                        assert scope["type"] == "http", "--lifespan off: no lifespan scope"
                        if scope["path"].endswith("/slow"):
                            await asyncio.sleep(1.5)
                        body = f'{os.environ["GREETING"]} {scope["root_path"]} {scope["path"]}'.encode()
                        await send({"type": "http.response.start", "status": 200, "headers": []})
                        await send({"type": "http.response.body", "body": body})
                    return app
                """);
        Path envFile = tmp.resolve("app.env");
        Files.writeString(envFile, "# comment\nGREETING=\"hi there\"\n");

        Served served = serve(Map.of(), "--python", python("3.11").toString(), "--app-dir", appDir.toString(), "--port", "0",
                "--factory", "--env-file", envFile.toString(), "--root-path", "/api", "--lifespan", "off", "--loop", "asyncio",
                "factoryapp:create");
        assertThat(served.get("/x")).isEqualTo("hi there /api /api/x");
        java.util.concurrent.CompletableFuture<String> slow = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return served.get("/slow");
            } catch (Exception e) {
                return e.toString();
            }
        });
        Thread.sleep(500); // the slow request is in flight
        Result result = served.stop();

        assertThat(slow.get(30, TimeUnit.SECONDS)).isEqualTo("hi there /api /api/slow");
        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stderr()).doesNotContain("Waiting for application startup.").contains("INFO:     Finished server process [");
        assertNoJavaStackTrace(result);
    }

    @Test
    void gracefulShutdownTimeoutCancelsTheRunningRequestThenRunsLifespanShutdown() throws Exception {
        Path appDir = Files.createDirectory(tmp.resolve("stuck"));
        Files.writeString(appDir.resolve("stuck.py"), """
                import asyncio

                seen = []

                async def app(scope, receive, send):
                    if scope["type"] == "lifespan":
                        while (await receive())["type"] != "lifespan.shutdown":
                            await send({"type": "lifespan.startup.complete"})
                        print("lifespan shutdown after", seen, flush=True)
                        await send({"type": "lifespan.shutdown.complete"})
                        return
                    try:
                        print("request started", flush=True)
                        await asyncio.sleep(3600)
                    except asyncio.CancelledError:
                        seen.append("CancelledError")
                        print("app got CancelledError", flush=True)
                        raise
                """);

        Served served = serve(Map.of(), "--python", python("3.11").toString(), "--app-dir", appDir.toString(), "--port", "0",
                "--timeout-graceful-shutdown", "1", "stuck:app");
        java.util.concurrent.CompletableFuture<String> stuck = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                java.net.http.HttpResponse<String> response = served.request("/", Map.of());
                return response.statusCode() + " " + response.body();
            } catch (Exception e) {
                return e.toString();
            }
        });
        served.awaitStdout("request started");
        Result result = served.stop();

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(stuck.get(30, TimeUnit.SECONDS)).as("as Uvicorn: a 500 for a response never started").isEqualTo("500 Internal Server Error");
        assertThat(result.stderr())
                .contains("ERROR:    Cancel 1 running task(s), timeout graceful shutdown exceeded")
                .contains("ERROR:    Exception in ASGI application").contains("CancelledError")
                .contains("INFO:     Application shutdown complete.")
                .contains("INFO:     Finished server process [");
        assertThat(result.stdout()).as("the cancel reached the app before lifespan shutdown ran")
                .containsSubsequence("app got CancelledError", "lifespan shutdown after ['CancelledError']");
        assertNoJavaStackTrace(result);
    }

    @Test
    void accessLogNamesTheClientATrustedProxyForwards() throws Exception {
        Served served = serve(Map.of(), "--python", python("3.11").toString(), "--app-dir", EXAMPLES.toString(), "--port", "0",
                "--forwarded-allow-ips", "127.0.0.1,::1", "hello:app");
        assertThat(served.request("/", Map.of("X-Forwarded-For", "203.0.113.7, 127.0.0.1")).body()).isEqualTo("Hello, world!");
        assertThat(served.request("/?plain", Map.of()).body()).isEqualTo("Hello, world!");
        Result result = served.stop();

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stdout()).as("as Uvicorn: the forwarded client, port 0")
                .contains("INFO:     203.0.113.7:0 - \"GET / HTTP/1.1\" 200")
                .containsPattern("INFO:     127\\.0\\.0\\.1:\\d+ - \"GET /\\?plain HTTP/1\\.1\" 200");
    }

    /**
     * {@code --io loop} (or {@code APX_IO=loop}) serves from the event loop's thread: the process has
     * no Netty event-loop threads; {@code --io threads} (the default) has them. Read from /proc, as an
     * operator would see them.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"default|true", "--io threads|true", "APX_IO=loop|false", "--io loop|false"})
    void ioOptionChoosesWhichThreadsServeTheSockets(String caseText) throws Exception {
        String[] parts = caseText.split("\\|");
        Map<String, String> env = parts[0].contains("=") ? Map.of(parts[0].split("=")[0], parts[0].split("=")[1]) : Map.of();
        List<String> args = new ArrayList<>(parts[0].startsWith("--") ? List.of(parts[0].split(" ")) : List.of());
        args.addAll(List.of("--python", python("3.11").toString(), "--app-dir", EXAMPLES.toString(), "--port", "0",
                "--no-access-log", "hello:app"));
        Served served = serve(env, args.toArray(String[]::new));
        assertThat(served.get("/")).isEqualTo("Hello, world!");
        List<String> threads = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc", String.valueOf(served.process.pid()), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    threads.add(Files.readString(task.resolve("comm")).strip());
                } catch (java.nio.file.NoSuchFileException gone) {
                    // a thread that ended meanwhile (the warm-up's, a C2 thread HotSpot stops once its queue is short)
                }
            }
        }
        Result result = served.stop();

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(threads).contains("apx-loop");
        assertThat(threads.stream().anyMatch(name -> name.startsWith("multiThreadIoEv")))
                .as("Netty event-loop threads among %s", threads).isEqualTo(Boolean.parseBoolean(parts[1]));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "--loop foo|Invalid value for option '--loop': 'foo' is not one of 'auto', 'asyncio', 'uvloop'.",
            "--lifespan maybe|Invalid value for option '--lifespan': 'maybe' is not one of 'auto', 'on', 'off'.",
            "--log-level loud|Invalid value for option '--log-level': 'loud' is not one of 'trace', 'debug', 'info', 'warning', 'error', 'critical'.",
            "APX_LOOP=tokio|Invalid value for option '--loop': 'tokio' is not one of 'auto', 'asyncio', 'uvloop'.",
            "--io both|Invalid value for option '--io': 'both' is not one of 'loop', 'threads'."})
    void badChoicesAreUsageErrorsBeforePythonStarts(String caseText) {
        String[] parts = caseText.split("\\|");
        Map<String, String> env = parts[0].contains("=") ? Map.of(parts[0].split("=")[0], parts[0].split("=")[1]) : Map.of();
        List<String> args = new ArrayList<>(parts[0].contains("=") ? List.of() : List.of(parts[0].split(" ")));
        args.addAll(List.of("--python", "/nonexistent/python", "hello:app")); // parse time: this Python is never looked for

        Result result = run(env, args.toArray(String[]::new));

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).isEqualTo("Usage: apx [OPTIONS] APP\nTry 'apx --help' for help.\n\nError: " + parts[1] + "\n");
    }

    @Test
    void lifespanStartupFailureExitsWithTheAppsMessage() throws IOException {
        Path appDir = Files.createDirectory(tmp.resolve("failing"));
        Files.writeString(appDir.resolve("failing.py"), """
                async def app(scope, receive, send):
                    assert scope["type"] == "lifespan"
                    await receive()
                    await send({"type": "lifespan.startup.failed", "message": "database unreachable"})
                """);

        Result result = run(Map.of(), "--python", python("3.11").toString(), "--app-dir", appDir.toString(), "--port", "0", "failing:app");

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(3);
        assertThat(result.stderr()).contains("ERROR:    database unreachable").contains("ERROR:    Application startup failed. Exiting.");
        assertNoJavaStackTrace(result);
    }

    @Test
    void failsWhenNoPythonIsFound() throws IOException {
        Path emptyDir = Files.createDirectory(tmp.resolve("empty-path"));

        Result result = run(Map.of("PATH", emptyDir.toString()), "--app-dir", EXAMPLES.toString(), "hello:app");

        assertFailsWith(result, "apx: error: no Python found: no python3 on PATH and no VIRTUAL_ENV; pass --python PATH");
    }

    @Test
    void failsWhenThePythonGivenDoesNotExist() {
        Result result = run(Map.of(), "--python", "/nonexistent/python", "--app-dir", EXAMPLES.toString(), "hello:app");

        assertFailsWith(result, "no Python found at /nonexistent/python (from --python)");
    }

    @Test
    void failsWhenThePythonGivenIsNotAWorkingInterpreter() throws IOException {
        Path fake = tmp.resolve("python");
        Files.writeString(fake, "#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 3\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        Result result = run(Map.of(), "--python", fake.toString(), "--app-dir", EXAMPLES.toString(), "hello:app");

        assertFailsWith(result, fake + " is not a working Python interpreter: Fatal Python error: init_fs_encoding");
    }

    @Test
    void failsWhenPythonIsTooOld() {
        Optional<Path> old = newestPyenvPythonBelow311();
        assumeTrue(old.isPresent(), "no CPython 3.x older than 3.11 under " + PYENV_VERSIONS);
        Path exe = old.get();
        String version = exe.getParent().getParent().getFileName().toString();

        Result result = run(Map.of(), "--python", exe.toString(), "--app-dir", EXAMPLES.toString(), "hello:app");

        assertFailsWith(result, "Python " + version + " at " + exe + " is too old: apx needs CPython 3.11 to 3.15");
    }

    @Test
    void failsWhenPythonWasBuiltWithoutEnableShared() throws IOException {
        Path wrapper = pythonWithConfigVars("static", "Py_ENABLE_SHARED=0");
        assertThat(pythonOutput(wrapper, "import sysconfig; print(sysconfig.get_config_var('Py_ENABLE_SHARED'))"))
                .as("the wrapper reports a non-shared build").isEqualTo("0");

        Result result = run(Map.of(), "--python", wrapper.toString(), "--app-dir", EXAMPLES.toString(), "hello:app");

        assertFailsWith(result, "at " + wrapper + " was built without --enable-shared, so it has no libpython to embed");
    }

    @Test
    void failsWhenLibpythonCannotBeLoaded() throws IOException {
        String ldlibrary = pythonOutput(python("3.11"), "import sysconfig; print(sysconfig.get_config_var('LDLIBRARY'))");
        Path libdir = Files.createDirectory(tmp.resolve("garbage-libdir"));
        Path garbage = libdir.resolve(ldlibrary);
        Files.writeString(garbage, "this is not an ELF shared object\n".repeat(8));
        Path wrapper = pythonWithConfigVars("badlib", "LIBDIR=" + pyString(libdir.toString()));
        assertThat(pythonOutput(wrapper, "import sysconfig; print(sysconfig.get_config_var('LIBDIR'))"))
                .as("the wrapper reports the fake LIBDIR").isEqualTo(libdir.toString());

        Result result = run(Map.of(), "--python", wrapper.toString(), "--app-dir", EXAMPLES.toString(), "hello:app");

        assertFailsWith(result, "apx: error: cannot load libpython for Python 3.11.");
        assertThat(result.errorLines().getFirst()).endsWith(": cannot load " + garbage + ": " + garbage + ": invalid ELF header");
    }

    @Test
    void failsWhenAppHasNoColon() {
        Result result = run(Map.of(), "--app-dir", EXAMPLES.toString(), "hello");

        assertFailsWith(result, "apx: error: APP must be module:attribute (e.g. main:app), got 'hello'");
    }

    @Test
    void failsWhenAppModuleIsMissing() {
        Result result = run(Map.of(), "--python", python("3.11").toString(), "--app-dir", EXAMPLES.toString(), "nosuchmodule:app");

        assertThat(result.exitCode()).as("as Uvicorn's; stderr:%n%s", result.stderr()).isEqualTo(3);
        assertThat(result.stderr()).as("one line: no importlib frames, the error once").isEqualTo("apx: error: cannot load app "
                + "'nosuchmodule:app': no module named 'nosuchmodule' in " + EXAMPLES + " or on the Python's sys.path\n");
        assertThat(result.stdout()).isEmpty();
    }

    @Test
    void failsWhenAppAttributeIsMissing() {
        Result result = run(Map.of(), "--python", python("3.11").toString(), "--app-dir", EXAMPLES.toString(), "hello:nope");

        assertThat(result.exitCode()).as("as Uvicorn's; stderr:%n%s", result.stderr()).isEqualTo(3);
        assertThat(result.stderr()).as("one line, the error once")
                .isEqualTo("apx: error: cannot load app 'hello:nope': attribute 'nope' not found in module 'hello'\n");
    }

    @Test
    void anAppWhoseImportRaisesKeepsItsTracebackAndExits1() throws IOException {
        Path appDir = Files.createDirectory(tmp.resolve("raising"));
        Files.writeString(appDir.resolve("raising.py"), "import json\nconfig = json.loads('{')\n");

        Result result = run(Map.of(), "--python", python("3.11").toString(), "--app-dir", appDir.toString(), "raising:app");

        assertFailsWith(result, "apx: error: cannot load app 'raising:app': json.decoder.JSONDecodeError: Expecting property name");
        assertThat(result.stderr()).startsWith("Traceback (most recent call last):\n  File \"" + appDir.resolve("raising.py") + "\", line 2")
                .doesNotContain("<frozen importlib");
    }

    @Test
    void aMisspeltFlagIsNamedWithTheFlagItIsClosestTo() {
        Result result = run(Map.of(), "--worker", "2", "hello:app");

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).isEqualTo("Usage: apx [OPTIONS] APP\nTry 'apx --help' for help.\n\n"
                + "Error: No such option '--worker'. Did you mean '--workers'?\n");
    }

    @Test
    void aMissingAppIsNamedAsUvicornNamesIt() {
        Result result = run(Map.of(), "--port", "0");

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).isEqualTo("Usage: apx [OPTIONS] APP\nTry 'apx --help' for help.\n\nError: Missing argument 'APP'.\n");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "--workers -1|--workers must be 0 or more, got -1",
            "--timeout-worker-healthcheck 0|--timeout-worker-healthcheck must be 1 or more, got 0",
            "--limit-max-requests-jitter -2|--limit-max-requests-jitter must be 0 or more, got -2",
            "--reload-delay -1|--reload-delay must be 0 or more seconds, got -1.0",
            "--backlog 0|--backlog must be 1 or more, got 0",
            "--interpreters 0|--interpreters must be 1 to 16 (glibc has 16 link-map namespaces), got 0"})
    void aBadFlagValueIsNamedAloneInOneLineAndExits2BeforePythonStarts(String caseText) {
        String[] parts = caseText.split("\\|");
        List<String> args = new ArrayList<>(List.of(parts[0].split(" ")));
        args.addAll(List.of("--python", python("3.11").toString(), "--app-dir", EXAMPLES.toString(), "hello:app"));

        Result result = run(Map.of(), args.toArray(String[]::new));

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(2);
        assertThat(result.stderr()).isEqualTo("apx: error: " + parts[1] + "\n");
    }

    @Test
    void zeroWorkersServesInOneProcessAsUvicornDoes() throws Exception {
        Served served = serve(Map.of(), "--python", python("3.11").toString(), "--app-dir", EXAMPLES.toString(), "--port", "0",
                "--workers", "0", "hello:app");
        assertThat(served.get("/")).isEqualTo("Hello, world!");
        Result result = served.stop();

        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stderr()).doesNotContain("Started parent process", "apx: error");
        assertThat(Pattern.compile("Started server process").matcher(result.stderr()).results().count()).isEqualTo(1);
    }

    @Test
    void aPortInUseIsOneLineExit3AndTheAppsShutdownRuns() throws IOException {
        Path appDir = Files.createDirectory(tmp.resolve("lifespan"));
        Files.writeString(appDir.resolve("lifespanapp.py"), """
                async def app(scope, receive, send):
                    assert scope["type"] == "lifespan"
                    while True:
                        message = await receive()
                        if message["type"] == "lifespan.startup":
                            print("startup ran", flush=True)
                            await send({"type": "lifespan.startup.complete"})
                        else:
                            print("shutdown ran", flush=True)
                            await send({"type": "lifespan.shutdown.complete"})
                            return
                """);
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();

            Result result = run(Map.of(), "--python", python("3.11").toString(), "--app-dir", appDir.toString(), "--port",
                    String.valueOf(port), "lifespanapp:app");

            assertThat(result.exitCode()).as("as Uvicorn's; stderr:%n%s", result.stderr()).isEqualTo(3);
            assertThat(result.stderr().lines().filter(line -> line.startsWith("ERROR:") || line.startsWith("apx: error")).toList())
                    .containsExactly("ERROR:    cannot bind 127.0.0.1:" + port + ": Address already in use");
            assertThat(result.stderr()).doesNotContain("io.netty", "Exception", "error(-98)")
                    .contains("INFO:     Application shutdown complete.");
            assertThat(result.stdout()).as("the app's shutdown ran after its startup").containsSubsequence("startup ran", "shutdown ran");
            assertNoJavaStackTrace(result);

            Result supervised = run(Map.of(), "--python", python("3.11").toString(), "--app-dir", appDir.toString(), "--port",
                    String.valueOf(port), "--workers", "2", "lifespanapp:app");
            assertThat(supervised.exitCode()).as("as Uvicorn's; stderr:%n%s", supervised.stderr()).isEqualTo(3);
            assertThat(supervised.stderr()).as("the supervisor binds before any worker starts")
                    .isEqualTo("apx: error: cannot bind 127.0.0.1:" + port + ": Address already in use\n");
        }
    }

    @ParameterizedTest(name = "--loop {0}")
    @ValueSource(strings = {"asyncio", "uvloop"})
    void aFastApiLifespanThatRaisesShowsItsTracebackOnce(String loop) throws IOException {
        Path appDir = Files.createDirectory(tmp.resolve("fastapi-lifespan"));
        Files.writeString(appDir.resolve("failing_lifespan.py"), """
                from contextlib import asynccontextmanager
                from fastapi import FastAPI

                @asynccontextmanager
                async def lifespan(app):
                    raise RuntimeError("database unreachable")
                    yield

                app = FastAPI(lifespan=lifespan)
                """);

        Result result = run(Map.of(), "--python", python("3.11").toString(), "--app-dir", appDir.toString(), "--port", "0",
                "--loop", loop, "failing_lifespan:app");

        assertThat(result.exitCode()).as(result.stderr()).isEqualTo(3);
        String stderr = result.stderr();
        assertThat(Pattern.compile("Traceback \\(most recent call last\\)").matcher(stderr).results().count()).as(stderr).isEqualTo(1);
        assertThat(Pattern.compile("RuntimeError: database unreachable").matcher(stderr).results().count()).as(stderr).isEqualTo(1);
        assertThat(stderr).doesNotContain("Exception in 'lifespan' protocol").endsWith("ERROR:    Application startup failed. Exiting.\n");
        assertThat(stderr.lines().count()).as("Uvicorn's is 13 lines; apx adds its 'loaded' line. stderr:%n%s", stderr)
                .isLessThanOrEqualTo(14);
    }

    @Test
    void failsWhenTheSharedLibraryIsNotInstalledNamingThePackage() throws IOException {
        Path emptyLibdir = Files.createDirectory(tmp.resolve("no-libpython"));
        Path wrapper = pythonWithConfigVars("nolib", "LIBDIR=" + pyString(emptyLibdir.toString()));

        Result result = run(Map.of(), "--python", wrapper.toString(), "--app-dir", EXAMPLES.toString(), "hello:app");

        assertFailsWith(result, " has no libpython3.11.so.1.0 in " + emptyLibdir
                + " to embed; install it: apt-get install libpython3.11 (Debian, Ubuntu) or dnf install python3-libs (Fedora)");
        assertThat(result.stderr().lines().count()).isEqualTo(1);
    }

    @Test
    void helpIsGroupedAndFitsEightyColumnsAndVersionIsThePipPackages() throws IOException {
        Result help = run(Map.of(), "--help");

        assertThat(help.exitCode()).isZero();
        List<String> lines = help.stdout().lines().toList();
        assertThat(lines.getFirst()).isEqualTo("Usage: apx [OPTIONS] APP");
        assertThat(lines.size()).as("Uvicorn 0.54's is 125 lines for 62 options; apx has 82").isBetween(100, 140);
        assertThat(lines).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(80))
                .contains("App:", "Processes and reload:", "Logging:")
                .anySatisfy(line -> assertThat(line).contains("APP").contains("ASGI or WSGI"));
        assertThat(help.stdout()).doesNotContain("Default: ..", "http: //", "--[no-]", "issue");

        String pom = Files.readString(REPO.resolve("pom.xml"));
        Matcher pomVersion = Pattern.compile("<artifactId>apx</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertThat(pomVersion.find()).isTrue();
        String pep440 = pomVersion.group(1).replace("-SNAPSHOT", ".dev0");
        assertThat(Files.readString(REPO.resolve("pip/pyproject.toml"))).contains("\nversion = \"" + pep440 + "\"");
        Result version = run(Map.of(), "--version");
        assertThat(version.exitCode()).isZero();
        assertThat(version.stdout()).isEqualTo("apx " + pep440 + "\n");
    }

    @Test
    void failsWhenAppIsNotCallable() throws IOException {
        Path appDir = Files.createDirectory(tmp.resolve("app"));
        Files.writeString(appDir.resolve("notcallable.py"), "app = 42\n");

        Result result = run(Map.of(), "--python", python("3.11").toString(), "--app-dir", appDir.toString(), "notcallable:app");

        assertFailsWith(result, "apx: error: notcallable:app is not callable");
    }

    @Test
    void gcThresholdSizesPythonsYoungGenerationBeforeTheAppIsImported() throws Exception {
        Path appDir = Files.createDirectory(tmp.resolve("gc"));
        Files.writeString(appDir.resolve("gcapp.py"), """
                import gc
                import os

                at_import = gc.get_threshold()
                if os.environ.get("OWN_THRESHOLD"):
                    gc.set_threshold(int(os.environ["OWN_THRESHOLD"]))

                async def app(scope, receive, send):
                    await send({"type": "http.response.start", "status": 200, "headers": []})
                    await send({"type": "http.response.body", "body": f"{at_import} {gc.get_threshold()}".encode()})
                """);
        String[] common = {"--python", python("3.11").toString(), "--app-dir", appDir.toString(), "--port", "0",
                "--lifespan", "off", "--no-access-log"};

        Served byDefault = serve(Map.of(), concat(common, "gcapp:app"));
        assertThat(byDefault.get("/")).isEqualTo("(10000, 10, 10) (10000, 10, 10)");
        assertThat(byDefault.stop().exitCode()).isZero();

        Served cpythons = serve(Map.of(), concat(common, "--gc-threshold", "0", "gcapp:app"));
        assertThat(cpythons.get("/")).as("0 keeps CPython 3.11's own").isEqualTo("(700, 10, 10) (700, 10, 10)");
        assertThat(cpythons.stop().exitCode()).isZero();

        Served appsOwn = serve(Map.of("APX_GC_THRESHOLD", "5000", "OWN_THRESHOLD", "1234"), concat(common, "gcapp:app"));
        assertThat(appsOwn.get("/")).as("the flag's value at import, the app's own after it").isEqualTo("(5000, 10, 10) (1234, 10, 10)");
        assertThat(appsOwn.stop().exitCode()).isZero();

        Result negative = run(Map.of(), concat(common, "--gc-threshold", "-1", "gcapp:app"));
        assertThat(negative.exitCode()).as("a bad flag value: usage, as Uvicorn's").isEqualTo(2);
        assertThat(negative.stderr()).isEqualTo("apx: error: --gc-threshold must be 0 (CPython's own) or more, got -1\n");
    }

    private static String[] concat(String[] first, String... more) {
        return Stream.concat(Stream.of(first), Stream.of(more)).toArray(String[]::new);
    }

    // ---- helpers ----

    /** A running apx subprocess whose "running on" line has been seen. */
    private final class Served {
        final Process process;
        final Path stdout;
        final Path stderr;
        final int port;

        Served(Process process, Path stdout, Path stderr, int port) {
            this.process = process;
            this.stdout = stdout;
            this.stderr = stderr;
            this.port = port;
        }

        String get(String path) throws IOException, InterruptedException {
            return request(path, Map.of()).body();
        }

        java.net.http.HttpResponse<String> request(String path, Map<String, String> headers) throws IOException, InterruptedException {
            java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
            java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path));
            headers.forEach(request::header);
            return client.send(request.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        }

        /** Waits until the app has printed {@code text}. */
        void awaitStdout(String text) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            while (!Files.readString(stdout).contains(text)) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    fail("the app did not print %s; stderr:%n%s", text, Files.readString(stderr));
                }
                Thread.sleep(20);
            }
        }

        /** SIGTERM, then waits for the exit. */
        Result stop() throws IOException, InterruptedException {
            process.destroy();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                fail("apx did not stop on SIGTERM; stderr:%n%s", Files.readString(stderr));
            }
            return new Result(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
        }
    }

    private static final Pattern RUNNING = Pattern.compile("apx running on http://127\\.0\\.0\\.1:(\\d+) ");

    private Served serve(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-jar", JAR.toString()));
        command.addAll(List.of(args));
        Path stdout = Files.createTempFile(tmp, "stdout", ".txt");
        Path stderr = Files.createTempFile(tmp, "stderr", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(tmp.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        builder.environment().remove("VIRTUAL_ENV");
        builder.environment().put("PATH", "/usr/bin:/bin");
        builder.environment().putAll(env);
        Process process = builder.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            Matcher running = RUNNING.matcher(Files.readString(stderr));
            if (running.find()) {
                return new Served(process, stdout, stderr, Integer.parseInt(running.group(1)));
            }
            if (!process.isAlive()) {
                fail("apx exited with %d before serving; stderr:%n%s", process.exitValue(), Files.readString(stderr));
            }
            Thread.sleep(50);
        }
        process.destroyForcibly();
        fail("apx did not start serving within %d s; stderr:%n%s", TIMEOUT_SECONDS, Files.readString(stderr));
        return null;
    }

    /** Exit code 1, exactly one {@code apx: error:} line containing {@code expected}, no Java stack trace. */
    private static void assertFailsWith(Result result, String expected) {
        assertThat(result.exitCode()).as("exit code; stderr:%n%s", result.stderr()).isEqualTo(1);
        assertThat(result.errorLines()).as("error lines in stderr:%n%s", result.stderr())
                .singleElement().asString().contains(expected);
        assertNoJavaStackTrace(result);
    }

    private static void assertNoJavaStackTrace(Result result) {
        assertThat(result.stderr()).doesNotContain("Exception in thread").doesNotContainPattern(JAVA_STACK_FRAME);
        assertThat(result.stdout()).doesNotContainPattern(JAVA_STACK_FRAME);
    }

    /** Runs {@code java -jar apx.jar args} with PATH=/usr/bin:/bin, no VIRTUAL_ENV, then {@code env} on top. */
    private Result run(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-jar", JAR.toString()));
        command.addAll(List.of(args));
        return runCommand(command, env);
    }

    private Result runCommand(List<String> command, Map<String, String> env) {
        try {
            Path stdout = Files.createTempFile(tmp, "stdout", ".txt");
            Path stderr = Files.createTempFile(tmp, "stderr", ".txt");
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(tmp.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile());
            Map<String, String> environment = builder.environment();
            for (String name : List.of("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "_PYTHON_SYSCONFIGDATA_NAME",
                    "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")) {
                environment.remove(name);
            }
            environment.put("PATH", "/usr/bin:/bin");
            environment.putAll(env);
            Process process = builder.start();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                fail("%s did not finish within %d s; stderr so far:%n%s", command, TIMEOUT_SECONDS, Files.readString(stderr));
            }
            return new Result(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What {@code python -c code} prints (stripped); fails unless it exits 0. */
    private String pythonOutput(Path python, String code) {
        Result result = runCommand(List.of(python.toString(), "-c", code), Map.of());
        assertThat(result.exitCode()).as("%s -c %s: %s", python, code, result.stderr()).isZero();
        return result.stdout().strip();
    }

    /**
     * A {@code python} wrapper script around the 3.11 venv interpreter whose sysconfig reports the
     * real build's config vars with {@code overrides} (Python keyword arguments) applied, through a
     * sysconfigdata module selected with {@code _PYTHON_SYSCONFIGDATA_NAME}.
     */
    private Path pythonWithConfigVars(String name, String overrides) throws IOException {
        Path base = python("3.11");
        String realModule = pythonOutput(base, "import sysconfig; print(sysconfig._get_sysconfigdata_name())");
        Path dir = Files.createDirectory(tmp.resolve(name));
        String module = "_apx_" + name + "_sysconfigdata";
        Files.writeString(dir.resolve(module + ".py"), """
                import importlib
                build_time_vars = dict(importlib.import_module(%s).build_time_vars, %s)
                """.formatted(pyString(realModule), overrides));
        Path wrapper = dir.resolve("python");
        Files.writeString(wrapper, """
                #!/bin/sh
                _PYTHON_SYSCONFIGDATA_NAME=%s PYTHONPATH=%s exec %s "$@"
                """.formatted(module, shQuote(dir.toString()), shQuote(base.toString())));
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
        return wrapper;
    }

    /** The newest {@code $PYENV_ROOT/versions/3.X.Y/bin/python3.X} (default {@code ~/.pyenv}) with X < 11. */
    private static Optional<Path> newestPyenvPythonBelow311() {
        if (!Files.isDirectory(PYENV_VERSIONS)) {
            return Optional.empty();
        }
        Pattern versionName = Pattern.compile("3\\.(\\d+)\\.(\\d+)");
        try (Stream<Path> versions = Files.list(PYENV_VERSIONS)) {
            return versions
                    .map(dir -> versionName.matcher(dir.getFileName().toString()))
                    .filter(m -> m.matches() && Integer.parseInt(m.group(1)) < 11)
                    .filter(m -> Files.isExecutable(pyenvPython(m)))
                    .max(Comparator.<Matcher>comparingInt(m -> Integer.parseInt(m.group(1)))
                            .thenComparingInt(m -> Integer.parseInt(m.group(2))))
                    .map(CommandLineIT::pyenvPython);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Path pyenvPython(Matcher version) {
        return PYENV_VERSIONS.resolve(version.group()).resolve("bin").resolve("python3." + version.group(1));
    }

    private static Path python(String minor) {
        String property = "apx.python" + minor.replace(".", "");
        String value = System.getProperty(property);
        assertThat(value).as("system property %s", property).isNotBlank();
        return Path.of(value).toAbsolutePath();
    }

    private static String pyString(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    private static String shQuote(String value) {
        return "'" + value.replace("'", "'\\''") + "'";
    }
}
