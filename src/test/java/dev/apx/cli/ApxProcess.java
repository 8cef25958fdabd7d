package dev.apx.cli;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The packaged jar as a subprocess on Python 3.11, serving an app of the test resources
 * ({@code apxtest.*}) on an ephemeral port of 127.0.0.1; stdout and stderr go to files in
 * {@code dir}. For the {@code *IT} tests that watch the whole process: signals, exit code, log.
 */
final class ApxProcess implements AutoCloseable {
    private static final String JAVA = ProcessHandle.current().info().command().orElseThrow();
    private static final Path JAR = Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath();
    private static final Path PYTHON = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();
    private static final Path JVM_OPTIONS = Path.of("bin/jvm.options").toAbsolutePath();
    private static final Pattern RUNNING = Pattern.compile("apx running on https?://127\\.0\\.0\\.1:(\\d+) ");
    private static final Pattern JAVA_STACK_FRAME = Pattern.compile("(?m)^\\s+at [\\w$.]+\\(");

    final Process process;
    final int port;
    private final Path stdout;
    private final Path stderr;

    private ApxProcess(Process process, int port, Path stdout, Path stderr) {
        this.process = process;
        this.port = port;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /** Starts {@code apx --python 3.11 --app-dir <test resources>/python --port 0 args...} and waits until it serves. */
    static ApxProcess start(Path dir, Map<String, String> env, String... args) throws IOException, InterruptedException {
        return start(dir, testApps(), env, args);
    }

    /** The same with the app in {@code appDir} (e.g. a file the test edits) instead of the test resources. */
    static ApxProcess start(Path dir, Path appDir, Map<String, String> env, String... args) throws IOException, InterruptedException {
        return start(dir, appDir, PYTHON, env, args);
    }

    /** The same on another Python than 3.11 (a venv's {@code bin/python}). */
    static ApxProcess start(Path dir, Path appDir, Path python, Map<String, String> env, String... args) throws IOException, InterruptedException {
        return start(dir, appDir, python, List.of("--enable-native-access=ALL-UNNAMED"), env, args);
    }

    /** The same with the JVM options users' launchers pass (bin/jvm.options: the collector, heap sizing, malloc trimming). */
    static ApxProcess startAsLaunched(Path dir, Map<String, String> env, String... args) throws IOException, InterruptedException {
        return start(dir, testApps(), PYTHON, List.of("@" + JVM_OPTIONS), env, args);
    }

    /**
     * The same, started with {@code ignored} (e.g. "HUP", "INT") ignored, as {@code nohup} leaves SIGHUP and a shell
     * leaves SIGINT for a job it starts in the background.
     */
    static ApxProcess startWithSignalsIgnored(Path dir, List<String> ignored, String... args) throws IOException, InterruptedException {
        return start(dir, List.of("sh", "-c", "trap '' " + String.join(" ", ignored) + "; exec \"$@\"", "sh"), testApps(), PYTHON,
                List.of("--enable-native-access=ALL-UNNAMED"), Map.of(), args);
    }

    private static ApxProcess start(Path dir, Path appDir, Path python, List<String> jvmOptions, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return start(dir, List.of(), appDir, python, jvmOptions, env, args);
    }

    private static ApxProcess start(Path dir, List<String> prefix, Path appDir, Path python, List<String> jvmOptions, Map<String, String> env,
                                    String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(prefix);
        command.add(JAVA);
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", JAR.toString(),
                "--python", python.toAbsolutePath().toString(), "--app-dir", appDir.toString(), "--port", "0"));
        command.addAll(List.of(args));
        Path stdout = dir.resolve("stdout.txt");
        Path stderr = dir.resolve("stderr.txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        for (int i = 0; i < 1200; i++) {
            Matcher running = RUNNING.matcher(Files.readString(stderr));
            if (running.find()) {
                return new ApxProcess(process, Integer.parseInt(running.group(1)), stdout, stderr);
            }
            if (!process.isAlive()) {
                fail("apx exited early: %s", Files.readString(stderr));
            }
            Thread.sleep(50);
        }
        process.destroyForcibly();
        return fail("apx did not start: " + Files.readString(stderr));
    }

    static Path testApps() {
        try {
            return Path.of(ApxProcess.class.getResource("/python/apxtest/__init__.py").toURI()).getParent().getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    String stdout() throws IOException {
        return Files.readString(stdout);
    }

    String stderr() throws IOException {
        return Files.readString(stderr);
    }

    /** Waits up to {@code seconds} until stderr holds {@code text}. */
    void awaitStderr(String text, int seconds) throws IOException, InterruptedException {
        awaitCount(stderr, text, 1, seconds);
    }

    /** Waits up to {@code seconds} until stderr holds {@code text} {@code count} times. */
    void awaitStderr(String text, int count, int seconds) throws IOException, InterruptedException {
        awaitCount(stderr, text, count, seconds);
    }

    /** Waits up to {@code seconds} until stdout holds {@code text} {@code count} times. */
    void awaitStdout(String text, int count, int seconds) throws IOException, InterruptedException {
        awaitCount(stdout, text, count, seconds);
    }

    private void awaitCount(Path file, String text, int count, int seconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (count(Files.readString(file), text) < count) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                fail("%s appeared fewer than %d times in %s; stderr:%n%s", text, count, file.getFileName(), stderr());
            }
            Thread.sleep(10);
        }
    }

    /** Waits for the exit (after a signal); fails if it takes over {@code seconds}. */
    int awaitExit(int seconds) throws IOException, InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("apx did not exit within %d s; stderr:%n%s", seconds, stderr());
        }
        return process.exitValue();
    }

    /** Neither log holds a Java stack trace (what the user sees is apx's lines and the app's Python tracebacks). */
    void assertNoJavaStackTrace() throws IOException {
        assertThat(stderr()).doesNotContain("Exception in thread").doesNotContainPattern(JAVA_STACK_FRAME);
        assertThat(stdout()).doesNotContainPattern(JAVA_STACK_FRAME);
    }

    static long count(String haystack, String needle) {
        long n = 0;
        for (int at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length())) {
            n++;
        }
        return n;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
