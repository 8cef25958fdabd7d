package dev.apx.serve;

import dev.apx.supervisor.WorkerLink;

import java.util.function.Consumer;

/**
 * What the process around a run is, which the configuration does not say: the command line owns its
 * process (signals end the run), may be a worker of a supervisor, or one of several workers; a
 * host's JVM ({@code dev.apx.ApxServer}) owns nothing.
 *
 * @param workerLink          the supervisor of this worker process, or null
 * @param oneOfSeveralWorkers this is one of {@code --workers N > 1} ({@code wsgi.multiprocess})
 * @param onStopSignal        installs the handlers of the signals that end the run (given the action
 *                            that ends it), once the app is loaded; null in a host's JVM
 */
public record ProcessRole(WorkerLink workerLink, boolean oneOfSeveralWorkers, Consumer<Runnable> onStopSignal) {
    /** A run inside a host's JVM: no signal handlers, no supervisor. */
    public static ProcessRole embedded() {
        return new ProcessRole(null, false, null);
    }

    boolean ownsProcess() {
        return onStopSignal != null;
    }
}
