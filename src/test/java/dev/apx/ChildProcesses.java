package dev.apx;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The child processes of the ITs that build and run an example host as its users do (JavaHostIT,
 * SpringBootExampleIT): Maven and clients run to their end, the host watched while it runs.
 */
public final class ChildProcesses {
    /** The Python 3.11 the ITs give the hosts: {@code -Dapx.python311}, else the project's venv. */
    public static final Path PYTHON = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();

    /** The line with which Uvicorn started with {@code --port 0} announces the port it chose, for {@link #watch}. */
    public static final Pattern UVICORN_RUNNING_ON = Pattern.compile("Uvicorn running on http://127\\.0\\.0\\.1:(\\d+)");

    private ChildProcesses() {
    }

    /** The {@code java} launcher of the JDK running the tests. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * This build's jar into {@code ~/.m2} as {@code mvn install} puts it, where an example's Maven
     * build finds {@code dev.apx:apx} (it is on no remote repository). Online: a fresh {@code ~/.m2}
     * gets the install plugin from Maven Central, as any user's build does.
     */
    public static void installApx() throws Exception {
        run(Path.of("."), 300, "mvn", "-B", "-ntp", "-q", "install:install-file",
                "-Dfile=target/apx-0.1.0-SNAPSHOT.jar", "-DpomFile=pom.xml");
    }

    /** As {@link #run(Path, int, List, String...)}, where only exit code 0 passes. */
    public static String run(Path dir, int seconds, String... command) throws Exception {
        return run(dir, seconds, List.of(0), command);
    }

    /**
     * Runs {@code command} in {@code dir} to its end (a child Maven builds with this JDK) and fails
     * the test when it takes over {@code seconds} or exits with a code not in {@code exitCodes}.
     *
     * @return its output and error output, stripped
     */
    public static String run(Path dir, int seconds, List<Integer> exitCodes, String... command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " took over " + seconds + " s");
        }
        String text = out.get(10, TimeUnit.SECONDS).strip();
        assertThat(exitCodes).as(String.join(" ", command) + " in " + dir + "\n" + text).contains(process.exitValue());
        return text;
    }

    /** Waits up to 20 s for {@code line} in the file {@code log}, and fails the test without it. */
    public static void awaitLine(Path log, String line) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.readAllLines(log).contains(line) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(Files.readAllLines(log)).contains(line);
    }

    /**
     * Reads a running process's output (error output redirected into it) on a daemon thread: all of
     * it kept, and the port each of {@code portLines} announces (its first group).
     *
     * @param process   a process started with {@code redirectErrorStream(true)}
     * @param portLines the lines that announce a port, such as {@code running on http://127\.0\.0\.1:(\d+)}
     * @return the output so far and the ports' futures, which fail with the whole output if the process exits first
     */
    public static Output watch(Process process, Pattern... portLines) {
        Output output = new Output(portLines);
        Thread.ofPlatform().daemon().start(() -> output.read(process));
        return output;
    }

    /** What {@link #watch} reads. */
    public static final class Output {
        private final StringBuilder text = new StringBuilder();
        private final Pattern[] portLines;
        private final List<CompletableFuture<Integer>> ports;

        private Output(Pattern[] portLines) {
            this.portLines = portLines;
            this.ports = java.util.stream.Stream.generate(CompletableFuture<Integer>::new).limit(portLines.length).toList();
        }

        /** The port the {@code index}th pattern given to {@link #watch} announced, when it does. */
        public CompletableFuture<Integer> port(int index) {
            return ports.get(index);
        }

        /** The output so far. */
        public String text() {
            synchronized (text) {
                return text.toString();
            }
        }

        private void read(Process process) {
            try (var reader = process.inputReader()) {
                for (String line; (line = reader.readLine()) != null; ) {
                    synchronized (text) {
                        text.append(line).append('\n');
                    }
                    for (int i = 0; i < portLines.length; i++) {
                        Matcher m = portLines[i].matcher(line);
                        if (m.find()) {
                            ports.get(i).complete(Integer.parseInt(m.group(1)));
                        }
                    }
                }
            } catch (IOException e) {
                ports.forEach(port -> port.completeExceptionally(e));
            }
            for (int i = 0; i < portLines.length; i++) {
                ports.get(i).completeExceptionally(new IllegalStateException(
                        "the process exited before a line matching '" + portLines[i] + "':\n" + text()));
            }
        }
    }
}
