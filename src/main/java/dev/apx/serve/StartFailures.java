package dev.apx.serve;

import dev.apx.asgi.lifespan.Lifespan;
import dev.apx.host.AppNotFound;
import dev.apx.host.HostedApp;
import dev.apx.log.Log;
import dev.apx.python.PythonException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** How a run that could not start is told: the log lines and the command line's exit code. */
final class StartFailures {
    private StartFailures() {
    }

    /** Logs why a runtime past the first could not start, as a failed start of the first is; its exit code. */
    static int told(Throwable cause, String app) {
        switch (cause) {
            case Lifespan.StartupFailed e -> {
                Log.error(e.getMessage());
                Log.error("Application startup failed. Exiting.");
                return 3;
            }
            case AppNotFound e -> {
                System.err.println("apx: error: cannot load app '" + app + "': " + e.getMessage());
                return 3;
            }
            case PythonException e -> {
                System.err.print(e.pythonTraceback());
                System.err.println("apx: error: cannot load app '" + app + "': " + e.getMessage());
                return 1;
            }
            default -> {
                System.err.println("apx: error: " + cause.getMessage());
                return 1;
            }
        }
    }

    /**
     * Runtime 0 failed to load the app while runtimes 1.. imported it too: none is left running as the process
     * ends (each that started its app shuts it down), and when one of them loaded it, runtime 0's failure is
     * told as a second copy's (the copies raced for something the process can hold once).
     */
    static RuntimeException firstImportFailed(RuntimeException failure, List<CompletableFuture<HostedApp>> importing, Duration grace) {
        Runtimes.settle(importing, grace);
        int loaded = 0;
        for (int i = 0; i < importing.size(); i++) {
            CompletableFuture<HostedApp> runtime = importing.get(i);
            if (!runtime.isDone() || runtime.isCompletedExceptionally()) {
                continue; // failed too, or still importing after the grace: the process ends without it
            }
            HostedApp app = runtime.join();
            loaded = loaded == 0 ? i + 1 : loaded;
            try {
                app.shutdown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return loaded > 0 && failure instanceof PythonException python ? Runtimes.importedElsewhere(0, loaded, python) : failure;
    }

    /** Lifespan shutdown of every runtime whose startup ran, before the process ends on a failed bind. */
    static void shutDownAfterFailedBind(HostedApp first, List<CompletableFuture<HostedApp>> more, Duration grace) {
        try {
            first.shutdown();
            Runtimes.settle(more, grace);
            for (CompletableFuture<HostedApp> runtime : more) {
                if (runtime.isDone() && !runtime.isCompletedExceptionally()) {
                    runtime.join().shutdown();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
