package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rest of Uvicorn's command line: every option of {@code uvicorn --help} (0.54, from the
 * 3.11 venv) is in {@code apx --help}, but for the short list that other tests cover; the added ones
 * do what Uvicorn's do; {@code --fd} and {@code --uds} work with {@code --workers}.
 */
class UvicornOptionsIT {
    /** Uvicorn options whose behaviour other tests check: TLS and HTTP/2, and --interface. */
    private static final Set<String> OTHER_ISSUES = Set.of("--ssl-keyfile", "--ssl-certfile", "--ssl-keyfile-password", "--ssl-version",
            "--ssl-cert-reqs", "--ssl-ca-certs", "--ssl-ciphers", "--http", "--http2", "--interface");
    private static final Pattern OPTION = Pattern.compile("(?<![\\w-])--[a-z0-9][a-z0-9-]*");
    private static final String JAVA = ProcessHandle.current().info().command().orElseThrow();
    private static final Path JAR = Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath();
    private static final Path PYTHON = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();
    private static final int WAIT = 90;

    @TempDir
    Path tmp;

    @Test
    void apxHelpListsEveryUvicornOption() throws Exception {
        Set<String> uvicorn = options(run(List.of(PYTHON.getParent().resolve("uvicorn").toString(), "--help")));
        Set<String> apx = options(run(List.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-jar", JAR.toString(), "--help")));
        assertThat(uvicorn).as("uvicorn --help was read").contains("--workers", "--reload", "--fd", "--header");
        Set<String> missing = new TreeSet<>(uvicorn);
        missing.removeAll(apx);
        assertThat(missing).as("Uvicorn options missing from apx --help").isSubsetOf(OTHER_ISSUES);
    }

    @Test
    void headerAndColorsAreApplied() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--header", "X-Served-By: apx-test", "--header", "x-two:2", "--use-colors",
                "apxtest.worker_apps:app")) {
            String response = rawGet(apx.port);
            assertThat(response).containsIgnoringCase("x-served-by: apx-test\r\n").containsIgnoringCase("x-two: 2\r\n")
                    .containsIgnoringCase("server: apx\r\n");
            Process curl = new ProcessBuilder("curl", "--silent", "--http2-prior-knowledge", "--include", "http://127.0.0.1:" + apx.port + "/")
                    .redirectErrorStream(true).start();
            String h2 = new String(curl.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(curl.waitFor()).isZero();
            assertThat(h2).as("the same headers on HTTP/2").startsWith("HTTP/2 200").contains("x-served-by: apx-test\r\n", "x-two: 2\r\n", "server: apx\r\n");
            assertThat(apx.stderr()).contains("\u001b[32mINFO\u001b[0m:     Application startup complete.");
            apx.process.destroy();
            assertThat(apx.awaitExit(WAIT)).isZero();
        }
    }

    /**
     * A Uvicorn log config, unchanged: python-json-logger's formatter writes JSON lines for both
     * loggers, Uvicorn's own AccessFormatter unpacks the access record's args, and the console
     * handler shows apx's startup line (what ApxProcess waits for).
     */
    @Test
    void logConfigSendsServerAndAccessRecordsThroughPythonLogging() throws Exception {
        Files.writeString(tmp.resolve("log.json"), """
                {"version": 1, "disable_existing_loggers": false,
                 "formatters": {
                   "json": {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": "%(name)s %(levelname)s %(message)s %(args)s"},
                   "access": {"()": "uvicorn.logging.AccessFormatter", "fmt": "%(client_addr)s|%(request_line)s|%(status_code)s",
                              "use_colors": false},
                   "console": {"format": "%(levelname)s [%(name)s] %(message)s"}},
                 "handlers": {
                   "json": {"class": "logging.FileHandler", "filename": "log.jsonl", "formatter": "json"},
                   "access": {"class": "logging.FileHandler", "filename": "access.txt", "formatter": "access"},
                   "console": {"class": "logging.StreamHandler", "formatter": "console", "stream": "ext://sys.stderr"}},
                 "loggers": {
                   "uvicorn.error": {"handlers": ["json", "console"], "level": "INFO"},
                   "uvicorn.access": {"handlers": ["json", "access"], "level": "INFO", "propagate": false}}}
                """);
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--log-config", "log.json", "--interface", "asgi3", "apxtest.context_app:app")) {
            assertThat(WorkerLoad.get(apx.port, "/logged?q=1")).isEqualTo("import +called -");
            // and without --reset-contextvars, as Uvicorn: a copy of the app's import context, never another request's
            assertThat(WorkerLoad.get(apx.port, "/")).isEqualTo("import +called -");
            apx.process.destroy();
            assertThat(apx.awaitExit(WAIT)).isZero();
            assertThat(apx.stderr()).contains("INFO [uvicorn.error] Application startup complete.");
            assertThat(apx.stdout()).as("no access line of apx's own").doesNotContain("/logged");
        }
        List<String> json = Files.readAllLines(tmp.resolve("log.jsonl"));
        assertThat(json).contains("{\"name\": \"uvicorn.error\", \"levelname\": \"INFO\", \"message\": \"Application startup complete.\", \"args\": []}");
        assertThat(json).anyMatch(line -> line.matches("\\{\"name\": \"uvicorn.access\", \"levelname\": \"INFO\", \"message\": "
                + "\"127\\.0\\.0\\.1:\\d+ - \\\\\"GET /logged\\?q=1 HTTP/1\\.1\\\\\" 200\", "
                + "\"args\": \\[\"127\\.0\\.0\\.1:\\d+\", \"GET\", \"/logged\\?q=1\", \"1\\.1\", 200\\]\\}"));
        assertThat(json).filteredOn(line -> line.contains("uvicorn.access")).hasSize(2);
        assertThat(json.getLast()).as("the last line, logged at exit").contains("Finished server process");
        assertThat(Files.readString(tmp.resolve("access.txt"))).matches("127\\.0\\.0\\.1:\\d+\\|GET /logged\\?q=1 HTTP/1\\.1\\|200 OK\n127\\.0\\.0\\.1:\\d+\\|GET / HTTP/1\\.1\\|200 OK\n");
    }

    /** Uvicorn's --reset-contextvars: each HTTP request in an empty Context (the default is in the test above). */
    @Test
    void resetContextvarsRunsEachRequestInAnEmptyContext() throws Exception {
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of(), "--reset-contextvars", "--interface", "asgi3", "apxtest.context_app:app")) {
            assertThat(WorkerLoad.get(apx.port, "/")).isEqualTo("- +called -");
            assertThat(WorkerLoad.get(apx.port, "/")).isEqualTo("- +called -");
        }
    }

    @Test
    void badLogConfigsAndBadHeadersAreRefusedInOneLine() throws Exception {
        Files.writeString(tmp.resolve("truncated.json"), "{\"version\": 1,");
        Files.writeString(tmp.resolve("handler.json"), "{\"version\": 1, \"handlers\": {\"h\": {\"class\": \"nosuch.Handler\"}}}");
        for (List<String> args : List.of(List.of("--log-config", "missing.json"), List.of("--log-config", "truncated.json"),
                List.of("--log-config", "handler.json"), List.of("--header", "no-colon"))) {
            List<String> command = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-jar", JAR.toString(),
                    "--python", PYTHON.toString()));
            command.addAll(args);
            command.add("main:app");
            Process process = new ProcessBuilder(command).directory(tmp.toFile()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor()).as(output).isEqualTo(1);
            assertThat(output.lines().toList()).as(output).hasSize(1);
            assertThat(output).startsWith("apx: error: " + args.getFirst());
        }
    }

    @Test
    void workersServeOnAUnixSocket() throws Exception {
        Path socket = tmp.resolve("apx.sock");
        Process apx = startApx(List.of("--workers", "2", "--uds", socket.toString(), "apxtest.worker_apps:app"));
        try {
            awaitLog(apx, "Application startup complete.", 2);
            assertThat(log()).contains("apx running on unix socket " + socket);
            Set<String> pids = new HashSet<>();
            for (int i = 0; i < 40 && pids.size() < 2; i++) {
                try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    channel.connect(UnixDomainSocketAddress.of(socket));
                    channel.write(ByteBuffer.wrap("GET /pid HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
                    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                    ByteBuffer buffer = ByteBuffer.allocate(4096);
                    while (channel.read(buffer.clear()) > 0) {
                        bytes.write(buffer.array(), 0, buffer.position());
                    }
                    String response = bytes.toString(StandardCharsets.ISO_8859_1);
                    assertThat(response).startsWith("HTTP/1.1 200 ");
                    pids.add(response.substring(response.indexOf("\r\n\r\n") + 4));
                }
            }
            assertThat(pids).as("both workers serve the one socket").hasSize(2);
            apx.destroy();
            assertThat(apx.waitFor(WAIT, TimeUnit.SECONDS)).isTrue();
            assertThat(apx.exitValue()).isZero();
            assertThat(socket).as("the supervisor removes its socket file").doesNotExist();
        } finally {
            apx.destroyForcibly();
        }
    }

    @Test
    void workersServeOnAnInheritedFileDescriptor() throws Exception {
        // a parent (here Python, as systemd would) binds the socket and passes it as --fd
        String launcher = """
                import os, socket, sys
                s = socket.socket()
                s.bind(("127.0.0.1", 0))
                s.listen(128)
                os.set_inheritable(s.fileno(), True)
                print("port", s.getsockname()[1], file=sys.stderr, flush=True)
                args = sys.argv[1:]
                os.execv(args[0], args + ["--fd", str(s.fileno()), "--workers", "2", "apxtest.worker_apps:app"])
                """;
        List<String> command = new ArrayList<>(List.of(PYTHON.toString(), "-c", launcher, JAVA, "--enable-native-access=ALL-UNNAMED",
                "-jar", JAR.toString(), "--python", PYTHON.toString(), "--app-dir", testApps().toString()));
        Process apx = new ProcessBuilder(command).directory(tmp.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(tmp.resolve("stdout.txt").toFile()).redirectError(tmp.resolve("stderr.txt").toFile()).start();
        try {
            awaitLog(apx, "Application startup complete.", 2);
            Matcher port = Pattern.compile("port (\\d+)").matcher(log());
            assertThat(port.find()).isTrue();
            assertThat(WorkerLoad.get(Integer.parseInt(port.group(1)), "/")).isEqualTo("ok");
            apx.destroy();
            assertThat(apx.waitFor(WAIT, TimeUnit.SECONDS)).isTrue();
            assertThat(apx.exitValue()).isZero();
        } finally {
            apx.destroyForcibly();
        }
    }

    private Process startApx(List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-jar", JAR.toString(),
                "--python", PYTHON.toString(), "--app-dir", testApps().toString()));
        command.addAll(args);
        return new ProcessBuilder(command).directory(tmp.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(tmp.resolve("stdout.txt").toFile()).redirectError(tmp.resolve("stderr.txt").toFile()).start();
    }

    private String log() throws IOException {
        return Files.readString(tmp.resolve("stderr.txt"));
    }

    private void awaitLog(Process apx, String text, int count) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
        while (ApxProcess.count(log(), text) < count) {
            if (System.nanoTime() > deadline || !apx.isAlive()) {
                throw new AssertionError(text + " appeared fewer than " + count + " times; stderr:\n" + log());
            }
            Thread.sleep(20);
        }
    }

    private static Path testApps() throws Exception {
        return Path.of(UvicornOptionsIT.class.getResource("/python/apxtest/__init__.py").toURI()).getParent().getParent();
    }

    private static String rawGet(int port) throws IOException {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.getOutputStream().write("GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(tmp.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(output).isZero();
        return output;
    }

    /** The long option names of a help text, "--x / --no-x" giving both. */
    private static Set<String> options(String help) {
        Set<String> names = new TreeSet<>();
        for (String line : help.lines().toList()) {
            String head = line.strip();
            if (!head.startsWith("-")) {
                continue; // a description line
            }
            String column = head.split("\\s{2,}")[0];
            column = column.replaceAll("--\\[no-]([a-z0-9-]+)", "--$1 --no-$1"); // picocli's "--[no-]x" is "--x / --no-x"
            Matcher matcher = OPTION.matcher(column);
            while (matcher.find()) {
                names.add(matcher.group());
            }
        }
        return names;
    }
}
