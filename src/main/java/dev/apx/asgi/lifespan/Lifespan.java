package dev.apx.asgi.lifespan;

import dev.apx.asgi.Futures;
import dev.apx.asgi.Messages;
import dev.apx.bridge.Bridge;
import dev.apx.config.LifespanMode;
import dev.apx.log.Log;
import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The ASGI lifespan protocol ({@code --lifespan auto|on|off}), as Uvicorn runs it: one coroutine
 * that receives {@code lifespan.startup}, later {@code lifespan.shutdown}. In {@code auto} mode an
 * app that raises before startup completes simply does not support it.
 *
 * <p>{@link #startup} and {@link #shutdown} block the calling thread (never one holding the GIL).
 */
public final class Lifespan {
    /** Startup failed: the app's message (or its exception). */
    public static final class StartupFailed extends Exception {
        StartupFailed(String message) {
            super(message);
        }
    }

    private final Bridge bridge;
    private final PyRef app;
    private final PyRef state;
    private final LifespanMode mode;
    private final CompletableFuture<String> startup = new CompletableFuture<>(); // null: ok, else failure
    private final CompletableFuture<String> shutdown = new CompletableFuture<>();
    private PyRef shutdownSignal; // guarded by this; the pending receive() after startup
    private boolean receivedStartup;
    private boolean shutdownRequested;
    private volatile boolean running;
    private volatile boolean toldFailure; // the app sent lifespan.startup.failed or lifespan.shutdown.failed

    public Lifespan(Bridge bridge, PyRef app, PyRef state, LifespanMode mode) {
        this.bridge = bridge;
        this.app = app;
        this.state = state;
        this.mode = mode;
    }

    public void startup() throws StartupFailed, InterruptedException {
        if (mode == LifespanMode.OFF) {
            return;
        }
        Log.info("Waiting for application startup.");
        running = true;
        bridge.start(this::invoke, (gil, request, result, error) -> ended(error));
        String failure = await(startup, 0);
        if (failure != null) {
            throw new StartupFailed(failure);
        }
        Log.info("Application startup complete.");
    }

    public void shutdown(long timeoutSeconds) throws InterruptedException {
        if (mode == LifespanMode.OFF) {
            return;
        }
        Log.info("Waiting for application shutdown.");
        synchronized (this) {
            shutdownRequested = true;
            if (shutdownSignal != null) {
                Futures.resolve(bridge, shutdownSignal, Map.of("type", "lifespan.shutdown"));
                shutdownSignal = null;
            }
        }
        String failure = running ? await(shutdown, timeoutSeconds) : null;
        if (failure != null) { // as Uvicorn: never "complete" after a failure or a timeout
            Log.error(failure);
            Log.error("Application shutdown failed. Exiting.");
        } else {
            Log.info("Application shutdown complete.");
        }
    }

    private static String await(CompletableFuture<String> future, long timeoutSeconds) throws InterruptedException {
        try {
            return timeoutSeconds > 0 ? future.get(timeoutSeconds, TimeUnit.SECONDS) : future.get();
        } catch (ExecutionException e) {
            return e.getCause().toString();
        } catch (TimeoutException e) {
            return "Timed out waiting for application shutdown.";
        }
    }

    private PyRef invoke(Gil gil, dev.apx.bridge.Request request) {
        try (PyRef module = gil.importModule("_apx._asgi");
             PyRef wrapper = module.getAttr(gil, "awaitable");
             PyRef receive = Futures.awaitable(gil, wrapper, "receive", (g, args) -> receive(g));
             PyRef send = Futures.awaitable(gil, wrapper, "send", (g, args) -> send(args.get(0)))) {
            Map<String, Object> scope = Map.of("type", "lifespan",
                    "asgi", Map.of("version", "3.0", "spec_version", "2.0"), "state", state);
            return app.call(gil, scope, receive, send);
        }
    }

    private synchronized Object receive(Gil gil) {
        if (!receivedStartup) {
            receivedStartup = true;
            return Map.of("type", "lifespan.startup");
        }
        if (shutdownRequested) {
            return Map.of("type", "lifespan.shutdown");
        }
        shutdownSignal = Futures.pending(gil, bridge);
        return shutdownSignal;
    }

    private Object send(Object message) {
        String type;
        try {
            type = Messages.type(message);
        } catch (Messages.Invalid e) {
            return e.getMessage();
        }
        Object text = ((Map<?, ?>) message).get("message");
        String reason = text instanceof String s && !s.isEmpty() ? s : null;
        switch (type) {
            case "lifespan.startup.complete" -> startup.complete(null);
            case "lifespan.startup.failed" -> {
                toldFailure = true;
                startup.complete(reason == null ? "Application startup failed." : reason);
            }
            case "lifespan.shutdown.complete" -> shutdown.complete(null);
            case "lifespan.shutdown.failed" -> {
                toldFailure = true;
                shutdown.complete(reason == null ? "Application shutdown failed." : reason);
            }
            default -> {
                return "Unexpected ASGI lifespan message '" + type + "'.";
            }
        }
        return null;
    }

    private void ended(PythonException error) {
        running = false;
        if (error != null) {
            if (!startup.isDone() && mode == LifespanMode.AUTO) {
                Log.info("ASGI 'lifespan' protocol appears unsupported.");
                startup.complete(null);
            } else if (!toldFailure && (!startup.isDone() || !shutdown.isDone())) { // as Uvicorn: a told failure is logged once
                Log.error("Exception in 'lifespan' protocol\n" + error.pythonTraceback().stripTrailing());
                startup.complete(error.pythonType() + ": " + error.pythonMessage());
            }
        }
        startup.complete(null);
        shutdown.complete(null);
    }
}
