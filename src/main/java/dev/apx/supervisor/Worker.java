package dev.apx.supervisor;

import dev.apx.log.Log;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One worker process as the supervisor sees it. Its stdout (the access log) is the supervisor's; its
 * stderr is relayed line by line, held back until it serves, so that of N workers failing to import
 * the app the same way, one traceback is shown, not N.
 */
final class Worker {
    private static final long NOT_PINGED = Long.MIN_VALUE;
    /** In each worker's environment: its slot, 0..N-1, kept by its replacements (the {@code worker} label of its metrics). */
    static final String ID_ENV = "APX_WORKER_ID";

    private final Process process;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final List<String> heldBack = new ArrayList<>();
    private boolean relaying; // guarded by heldBack
    private volatile Channel control;
    private volatile long pingSentNanos = NOT_PINGED;
    private volatile boolean recycleAsked;
    private volatile CompletableFuture<String> reloadAsked; // the answer to the last "reload"
    private volatile int metricsPort; // 0 until it says (--metrics only)
    private volatile boolean killedUnhealthy;

    private Worker(Process process) {
        this.process = process;
        Thread.ofVirtual().name("apx-stderr-" + process.pid()).start(this::relayStderr);
    }

    /** Starts a worker; {@code slot} null for --reload's one worker (it is no slot of several). */
    static Worker start(WorkerCommand command, Path controlSocket, Integer slot) {
        ProcessBuilder builder = new ProcessBuilder(command.command())
                .redirectInput(ProcessBuilder.Redirect.INHERIT)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                .redirectError(ProcessBuilder.Redirect.PIPE);
        builder.environment().put(WorkerLink.SOCKET_ENV, controlSocket.toString());
        if (slot != null) {
            builder.environment().put(ID_ENV, String.valueOf(slot));
        } else {
            builder.environment().remove(ID_ENV);
        }
        try {
            return new Worker(builder.start());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot start a worker: " + e.getMessage(), e);
        }
    }

    long pid() {
        return process.pid();
    }

    /** The port of its metrics endpoint on 127.0.0.1; 0 until it said (or without --metrics). */
    int metricsPort() {
        return metricsPort;
    }

    /** Killed by the supervisor because its event loop did not answer the health check. */
    boolean killedUnhealthy() {
        return killedUnhealthy;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    boolean isReady() {
        return ready.isDone();
    }

    /** The exit code (128 + signal number after a signal), or -1 while it runs. */
    int exitCode() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** Exited on its own before serving (the app does not import, lifespan startup failed...), not killed by a signal. */
    boolean failedToStart() {
        int code = exitCode();
        return !isReady() && code > 0 && code < 128;
    }

    // --- from the control socket's thread

    void connected(Channel channel) {
        control = channel;
    }

    void message(String line) {
        switch (line) {
            case "ready" -> {
                release(true);
                ready.complete(null);
            }
            case "pong" -> pingSentNanos = NOT_PINGED;
            case "recycle" -> recycleAsked = true;
            case WorkerLink.RELOADED, WorkerLink.RELOAD_FAILED, WorkerLink.RELOAD_BY_RESTART -> {
                CompletableFuture<String> asked = reloadAsked;
                if (asked != null) {
                    asked.complete(line);
                }
            }
            default -> {
                if (line.startsWith(WorkerLink.METRICS_MESSAGE) && line.substring(WorkerLink.METRICS_MESSAGE.length()).matches("[1-9][0-9]{0,4}")) {
                    metricsPort = Integer.parseInt(line.substring(WorkerLink.METRICS_MESSAGE.length()));
                    return;
                }
                Log.warning("Child process [" + pid() + "] sent an unknown control message: " + line);
            }
        }
    }

    // --- from the supervisor's thread

    /** Waits until it serves; false if it exited, {@code stop} was set, or {@code seconds} passed. */
    boolean awaitReady(int seconds, java.util.function.BooleanSupplier stop) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline && !stop.getAsBoolean() && process.isAlive()) {
            if (ready.isDone()) {
                return true;
            }
            Thread.sleep(20);
        }
        return ready.isDone() && process.isAlive();
    }

    /** True once after it asked to be replaced (a failed replacement is not retried in a loop). */
    boolean takeRecycleRequest() {
        boolean asked = recycleAsked;
        recycleAsked = false;
        return asked;
    }

    /**
     * Asks a worker that serves to load the app's new code into fresh runtimes of its own process
     * ({@code --reload}); completes with its answer: {@link WorkerLink#RELOADED}, {@link WorkerLink#RELOAD_FAILED}
     * (the old code serves on) or {@link WorkerLink#RELOAD_BY_RESTART} (no room for more runtimes: restart it).
     */
    CompletableFuture<String> reload() {
        CompletableFuture<String> asked = new CompletableFuture<>();
        reloadAsked = asked;
        if (!process.isAlive()) {
            asked.complete(WorkerLink.RELOAD_BY_RESTART);
            return asked;
        }
        process.onExit().thenRun(() -> asked.complete(WorkerLink.RELOAD_BY_RESTART));
        // a worker that serves already may not have said so yet (or not started): ask once it has
        ready.thenRun(() -> {
            Channel channel = control;
            if (channel == null) {
                asked.complete(WorkerLink.RELOAD_BY_RESTART);
            } else {
                channel.writeAndFlush(Unpooled.copiedBuffer(WorkerLink.RELOAD + "\n", StandardCharsets.US_ASCII));
            }
        });
        return asked;
    }

    /** Sends a ping unless one is out; true if the one out has waited more than {@code timeoutSeconds}. */
    boolean pingOverdue(int timeoutSeconds) {
        Channel channel = control;
        if (channel == null || !ready.isDone()) {
            return false;
        }
        long sent = pingSentNanos;
        if (sent == NOT_PINGED) {
            pingSentNanos = System.nanoTime();
            channel.writeAndFlush(Unpooled.copiedBuffer("ping\n", StandardCharsets.US_ASCII));
            return false;
        }
        return System.nanoTime() - sent > TimeUnit.SECONDS.toNanos(timeoutSeconds);
    }

    /** SIGTERM: it stops accepting, drains within its --timeout-graceful-shutdown and exits. */
    void terminate() {
        if (process.isAlive()) {
            process.toHandle().destroy(); // Process.destroy() would also close our end of its stderr: its last lines would be lost
            Log.info("Terminated child process [" + pid() + "]");
        }
    }

    void kill() {
        process.toHandle().destroyForcibly();
    }

    /** SIGKILL because its event loop did not answer the health check (its restart is counted as such). */
    void killUnhealthy() {
        killedUnhealthy = true;
        kill();
    }

    void join() {
        Log.info("Waiting for child process [" + pid() + "]");
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        awaitOutput(); // its last lines ("Finished server process") before the supervisor's next
    }

    /** Shows what it held back (show) or drops it (a worker stopped while starting), then relays as it comes. */
    void release(boolean show) {
        synchronized (heldBack) {
            if (show) {
                heldBack.forEach(System.err::println);
                System.err.flush();
            }
            heldBack.clear();
            relaying = true;
        }
    }

    /** After an exit: waits (briefly) until its last stderr lines were read. */
    void awaitOutput() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        synchronized (heldBack) {
            try {
                for (long left = deadline - System.nanoTime(); !drained && left > 0; left = deadline - System.nanoTime()) {
                    TimeUnit.NANOSECONDS.timedWait(heldBack, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void relayStderr() {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                synchronized (heldBack) {
                    if (relaying) {
                        System.err.println(line);
                    } else {
                        heldBack.add(line);
                    }
                }
            }
        } catch (IOException ignored) {
            // the worker is gone
        }
        synchronized (heldBack) {
            heldBack.notifyAll();
            drained = true;
        }
    }

    private boolean drained; // guarded by heldBack
}
