package dev.apx.supervisor;

import dev.apx.metrics.SupervisorMetrics.Restart;

import dev.apx.log.Log;
import dev.apx.metrics.MetricsConfig;
import dev.apx.metrics.SupervisorMetrics;

import sun.misc.Signal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code --workers N}: Uvicorn's {@code Multiprocess} for JVM workers. One thread runs everything
 * (signals are queued to it), checking each worker every half second: a dead one is replaced, one that
 * never started stops the supervisor (exit 3, its traceback shown once), one whose event loop does not
 * answer within {@code --timeout-worker-healthcheck} is killed and replaced, one past
 * {@code --limit-max-requests} is replaced the rolling way (the new one serves before the old one drains).
 * SIGHUP loads the app again in each worker, one after another (fresh runtimes inside it, or the rolling way); SIGTTIN / SIGTTOU add or remove one; SIGINT / SIGTERM stop them
 * (each drains within its {@code --timeout-graceful-shutdown}) and exit 0.
 *
 * <p>Worker {@code i} of the list is slot {@code i} ({@code APX_WORKER_ID}), and its replacements take
 * the same slot, so that with {@code --metrics} the series of {@code worker="i"} go on across restarts.
 */
public final class Supervisor {
    /** How long a new worker may take to serve: a JVM start, the interpreter and the app's import. */
    static final int STARTUP_SECONDS = 60;
    private static final int STARTUP_FAILURE = 3;
    /** The signals it handles (cli takes them even when the process started with them ignored). */
    public static final List<String> SIGNALS = List.of("INT", "TERM", "HUP", "TTIN", "TTOU");

    private final WorkerCommand command;
    private final int healthcheckSeconds;
    private final LinkedBlockingQueue<String> signals = new LinkedBlockingQueue<>();
    /** Slot i's current worker; copy-on-write because the metrics endpoint's threads read it on each scrape. */
    private final List<Worker> workers = new CopyOnWriteArrayList<>();
    private final MetricsConfig metricsConfig;
    private SupervisorMetrics metrics; // null without --metrics
    private int wanted;
    private volatile boolean shouldExit;
    private boolean failedToStart;
    private ControlServer control;

    /** {@code metrics}: where the one metrics endpoint of all workers listens; null without {@code --metrics}. */
    public Supervisor(String[] args, int workers, int healthcheckSeconds, MetricsConfig metrics) {
        this.command = WorkerCommand.ofThisProcess(args);
        this.wanted = workers;
        this.healthcheckSeconds = healthcheckSeconds;
        this.metricsConfig = metrics;
    }

    /** Binds ({@code uds} or host:port, or takes {@code fd} when not null), serves until a signal; the exit code. */
    public int run(String host, int port, java.nio.file.Path uds, Integer fd, int backlog) {
        try (ListenSocket socket = fd != null ? ListenSocket.inherit(fd) : ListenSocket.bind(host, port, uds, backlog);
             ControlServer control = ControlServer.start(socket.fd());
             SupervisorMetrics metrics = metricsConfig == null ? null : SupervisorMetrics.start(metricsConfig, this::scrapeTargets, this::alive)) {
            this.control = control;
            this.metrics = metrics;
            if (metrics != null) {
                Log.info("Metrics of all workers on http://" + metricsConfig.host() + ":" + metrics.port() + "/metrics");
            }
            Log.info("apx running on " + socket.url() + " (Press CTRL+C to quit)");
            for (String name : SIGNALS) {
                Signal.handle(new Signal(name), signal -> {
                    if (name.equals("INT") || name.equals("TERM")) {
                        shouldExit = true;
                    }
                    signals.add(name);
                });
            }
            long pid = ProcessHandle.current().pid();
            Log.info("Started parent process [" + pid + "]");
            for (int i = 0; i < wanted; i++) {
                workers.add(control.start(command, i));
            }
            while (!shouldExit) {
                String signal = signals.poll(500, TimeUnit.MILLISECONDS);
                if (signal != null) {
                    handle(signal);
                }
                keepWorkersAlive();
            }
            while (!signals.isEmpty()) {
                handle(signals.poll()); // the INT/TERM that ended the loop: its log line
            }
            for (Worker worker : workers) {
                if (!worker.isReady()) {
                    worker.release(false); // one still starting: its lines would only repeat the failure shown
                }
                worker.terminate();
            }
            workers.forEach(Worker::join);
            Log.info("Stopping parent process [" + pid + "]");
            return failedToStart ? STARTUP_FAILURE : 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            workers.forEach(Worker::kill);
            return 1;
        }
    }

    private void handle(String signal) {
        switch (signal) {
            case "INT" -> Log.info("Received SIGINT, exiting.");
            case "TERM" -> Log.info("Received SIGTERM, exiting.");
            case "HUP" -> {
                Log.info("Received SIGHUP, restarting processes.");
                for (int i = 0; i < workers.size() && !shouldExit; i++) {
                    if (!reload(i)) {
                        return;
                    }
                }
            }
            case "TTIN" -> {
                Log.info("Received SIGTTIN, increasing the number of processes.");
                wanted++;
                workers.add(control.start(command, workers.size()));
            }
            case "TTOU" -> {
                Log.info("Received SIGTTOU, decreasing number of processes.");
                if (wanted <= 1) {
                    Log.info("Already reached one process, cannot decrease the number of processes anymore.");
                    return;
                }
                wanted--;
                Worker last = workers.removeLast();
                last.terminate();
                last.join();
                control.forget(last);
            }
            default -> Log.debug("Received signal SIG" + signal + ", but no handler is defined for it.");
        }
    }

    private void keepWorkersAlive() throws InterruptedException {
        for (int i = 0; i < workers.size() && !shouldExit; i++) {
            Worker worker = workers.get(i);
            if (worker.isAlive() && worker.pingOverdue(healthcheckSeconds)) {
                Log.error("Child process [" + worker.pid() + "] did not answer the health check within " + healthcheckSeconds
                        + " s (is its event loop blocked?); killing it.");
                worker.killUnhealthy();
            }
            if (!worker.isAlive()) {
                worker.join();
                control.forget(worker);
                if (worker.failedToStart()) {
                    worker.awaitOutput();
                    worker.release(true); // its traceback, once
                    Log.error("Child process [" + worker.pid() + "] failed to start, stopping the parent process.");
                    failedToStart = true;
                    shouldExit = true;
                    return;
                }
                Log.info("Child process [" + worker.pid() + "] died");
                workers.set(i, control.start(command, i));
                counted(worker.killedUnhealthy() ? Restart.HEALTHCHECK : Restart.DIED);
            } else if (worker.takeRecycleRequest()) {
                Log.info("Child process [" + worker.pid() + "] reached its request limit; replacing it.");
                replace(i, Restart.MAX_REQUESTS);
            }
        }
    }

    /**
     * SIGHUP for worker {@code i}: the app's code loaded again into fresh runtimes inside the worker
     * (no new JVM: docs/interpreters.md), else a new worker the rolling way ({@link #replace}); false
     * when the new code did not start (the old keeps serving and the rest of the restart is aborted).
     */
    private boolean reload(int i) {
        Worker worker = workers.get(i);
        String outcome;
        try {
            outcome = worker.reload().get(STARTUP_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            outcome = WorkerLink.RELOAD_BY_RESTART;
        }
        switch (outcome) {
            case WorkerLink.RELOADED -> {
                counted(Restart.RELOAD);
                return true;
            }
            case WorkerLink.RELOAD_FAILED -> {
                Log.error("Worker [" + worker.pid() + "] could not start the app again; keeping its code and aborting the restart.");
                return false;
            }
            default -> {
                return replace(i, Restart.RELOAD);
            }
        }
    }

    /** Replaces worker {@code i}, the new one serving before the old one drains; false if the new one did not start. */
    private boolean replace(int i, Restart reason) {
        Worker old = workers.get(i);
        Worker fresh = control.start(command, i);
        boolean ready;
        try {
            ready = fresh.awaitReady(STARTUP_SECONDS, () -> shouldExit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ready = false;
        }
        if (!ready) {
            boolean failed = !fresh.isAlive();
            fresh.kill();
            fresh.join();
            control.forget(fresh);
            if (!shouldExit) {
                if (failed) {
                    fresh.awaitOutput();
                    fresh.release(true);
                }
                Log.error("New child process [" + fresh.pid() + "] was not ready in time; keeping worker [" + old.pid()
                        + "] and aborting the restart.");
            } else {
                fresh.release(false);
            }
            return false;
        }
        old.terminate();
        old.join();
        control.forget(old);
        workers.set(i, fresh);
        counted(reason);
        return true;
    }

    private void counted(Restart reason) {
        if (metrics != null) {
            metrics.restarted(reason);
        }
    }

    /** Each slot's current worker, for a scrape (the metrics endpoint's thread). */
    private List<SupervisorMetrics.Worker> scrapeTargets() {
        List<SupervisorMetrics.Worker> targets = new java.util.ArrayList<>();
        int slot = 0;
        for (Worker worker : workers) { // a snapshot of the copy-on-write list
            targets.add(new SupervisorMetrics.Worker(slot++, worker.isAlive() ? worker.metricsPort() : 0));
        }
        return targets;
    }

    private int alive() {
        return (int) workers.stream().filter(Worker::isAlive).count();
    }
}
