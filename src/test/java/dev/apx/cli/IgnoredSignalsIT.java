package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server started with its signals ignored still takes them, as Uvicorn and Gunicorn do: HotSpot alone keeps
 * an inherited SIG_IGN for HUP, INT and TERM and installs no handler, so a supervisor under {@code nohup} never
 * reloaded on SIGHUP and a server started in the background of a script never stopped on SIGINT.
 */
class IgnoredSignalsIT {
    @TempDir
    Path tmp;

    @Test
    void aSupervisorStartedUnderNohupReloadsOnSighup() throws Exception {
        try (ApxProcess apx = ApxProcess.startWithSignalsIgnored(tmp, List.of("HUP"), "--workers", "2", "apxtest.worker_apps:app")) {
            apx.awaitStderr("Application startup complete.", 2, 90);
            WorkersIT.signal(apx, "HUP");
            apx.awaitStderr("Received SIGHUP, restarting processes.", 1, 30);
            apx.awaitStderr("Reloaded in ", 2, 90);
            assertThat(WorkerLoad.get(apx.port, "/")).isEqualTo("ok");
            WorkersIT.signal(apx, "TERM");
            assertThat(apx.awaitExit(60)).as(apx.stderr()).isZero();
        }
    }

    @Test
    void aServerStartedInTheBackgroundOfAScriptStopsOnSigint() throws Exception {
        try (ApxProcess apx = ApxProcess.startWithSignalsIgnored(tmp, List.of("INT"), "apxtest.worker_apps:app")) {
            assertThat(WorkerLoad.get(apx.port, "/")).isEqualTo("ok");
            WorkersIT.signal(apx, "INT");
            assertThat(apx.awaitExit(30)).as(apx.stderr()).isZero();
            assertThat(apx.stderr()).contains("Shutting down", "Finished server process");
        }
    }
}
