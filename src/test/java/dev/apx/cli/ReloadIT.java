package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reload: {@code --reload} watches {@code *.py} under the working directory (the JDK's
 * WatchService) and on a change loads the new code into a fresh runtime of the running worker; a
 * syntax error shows its traceback and the old code serves on; the fix is served.
 */
class ReloadIT {
    private static final int WAIT = 90;

    @TempDir
    Path tmp;

    @Test
    void anEditIsServedASyntaxErrorIsReportedAndTheFixIsServed() throws Exception {
        Path app = tmp.resolve("reloadme.py");
        Files.writeString(app, version("one"));
        Files.writeString(tmp.resolve("notes.txt"), "not watched");
        try (ApxProcess apx = ApxProcess.start(tmp, tmp, Map.of(), "--reload", "--reload-delay", "0.1", "reloadme:app")) {
            assertThat(apx.stderr()).contains("Will watch for changes in these directories: ['" + tmp.toRealPath() + "']");
            apx.awaitStderr("Started reloader process [" + apx.process.pid() + "] using WatchService", 1, WAIT);
            awaitBody(apx, "one");

            Files.writeString(tmp.resolve("notes.txt"), "still not watched"); // not *.py: no restart
            Files.writeString(app, version("two"));
            apx.awaitStderr("WatchService detected changes in 'reloadme.py'. Reloading...", 1, WAIT);
            awaitBody(apx, "two");
            assertThat(apx.stderr()).doesNotContain("notes.txt");

            Files.writeString(app, "async def app(scope, receive, send):\n    return (\n");
            apx.awaitStderr("SyntaxError", 1, WAIT);
            assertThat(apx.process.isAlive()).as("the reloader keeps watching").isTrue();

            Files.writeString(app, version("three"));
            apx.awaitStderr("WatchService detected changes in 'reloadme.py'. Reloading...", 3, WAIT);
            awaitBody(apx, "three");

            apx.process.destroy();
            assertThat(apx.awaitExit(WAIT)).isZero();
            assertThat(apx.stderr()).contains("Stopping reloader process [" + apx.process.pid() + "]");
            apx.assertNoJavaStackTrace();
        }
    }

    @Test
    void anEditIsLoadedIntoAFreshRuntimeOfTheRunningWorkerAndBrokenCodeNeverReplacesWorkingCode() throws Exception {
        Path app = tmp.resolve("reloadme.py");
        Files.writeString(app, version("one"));
        try (ApxProcess apx = ApxProcess.start(tmp, tmp, Map.of(), "--reload", "--reload-delay", "0.1", "reloadme:app")) {
            awaitBody(apx, "one");
            long worker = apx.process.children().findFirst().orElseThrow().pid();

            Files.writeString(app, version("two"));
            apx.awaitStderr("Reloaded in ", 1, WAIT);
            awaitBody(apx, "two");

            Files.writeString(app, "async def app(scope, receive, send):\n    return (\n");
            apx.awaitStderr("the previous code keeps serving", 1, WAIT);
            assertThat(apx.stderr()).contains("SyntaxError");
            assertThat(WorkerLoad.get(apx.port, "/")).as("the old code serves on").isEqualTo("two");

            Files.writeString(app, version("three"));
            apx.awaitStderr("Reloaded in ", 2, WAIT);
            awaitBody(apx, "three");
            assertThat(apx.process.children().map(ProcessHandle::pid).toList()).as("no new worker process").containsExactly(worker);
            assertThat(ApxProcess.count(apx.stderr(), "fresh runtime(s) started ahead")).as("both reloads took a spare runtime").isEqualTo(2);
            assertThat(apx.stderr()).doesNotContain("Waiting for child process");

            apx.process.destroy();
            assertThat(apx.awaitExit(WAIT)).isZero();
            apx.assertNoJavaStackTrace();
        }
    }

    @Test
    void reloadWithSeveralWorkersWarnsAsUvicornAndRunsOne() throws Exception {
        Files.writeString(tmp.resolve("reloadme.py"), version("one"));
        try (ApxProcess apx = ApxProcess.start(tmp, tmp, Map.of(), "--reload", "--workers", "3", "reloadme:app")) {
            awaitBody(apx, "one");
            assertThat(apx.stderr()).contains("\"workers\" flag is ignored when reloading is enabled.");
            assertThat(apx.process.children().count()).isEqualTo(1);
            apx.process.destroy();
            assertThat(apx.awaitExit(WAIT)).isZero();
        }
    }

    private static String version(String text) {
        return """
                async def app(scope, receive, send):
                    if scope["type"] != "http":
                        return
                    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d")]})
                    await send({"type": "http.response.body", "body": b"%s"})
                """.formatted(text.length(), text);
    }

    /** Polls until the worker (the new one after a reload) answers {@code expected}. */
    private static void awaitBody(ApxProcess apx, String expected) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + WAIT * 1_000_000_000L;
        String last = null;
        while (System.nanoTime() < deadline) {
            try {
                last = WorkerLoad.get(apx.port, "/");
                if (last.equals(expected)) {
                    return;
                }
            } catch (IOException e) {
                last = e.toString(); // between two workers
            }
            Thread.sleep(100);
        }
        throw new AssertionError("never served '" + expected + "' (last: " + last + "); stderr:\n" + apx.stderr());
    }
}
