package dev.apx.bridge;

import dev.apx.python.Gil;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;
import dev.apx.python.TestPython;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Calls ASGI apps through a real {@link Bridge} with {@code receive}/{@code send} implemented in
 * Java, without HTTP: what the server layer will do, minus the sockets.
 */
final class AsgiHarness implements AutoCloseable {
    /** What a request ended with. */
    record Outcome(int status, String body, String errorType, String errorMessage, int hops, int suspensions) {
    }

    final Interpreter python;
    final Bridge bridge;
    private final PyRef doneFuture;

    AsgiHarness(BridgeConfig config) {
        this(config, TestPython.interpreter());
    }

    AsgiHarness(BridgeConfig config, Interpreter python) {
        this.python = python;
        bridge = Bridge.start(python, config);
        CompletableFuture<PyRef> done = new CompletableFuture<>();
        bridge.runOnLoop(gil -> {
            PyRef future = bridge.newFuture(gil);
            future.callMethod(gil, "set_result", (Object) null).close();
            done.complete(future);
        });
        try {
            doneFuture = done.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the loop did not run a posted action within 30 s", e);
        }
    }

    /** Starts {@code apxtest.bridge_apps.<app>} with a scope of {@code path} and extra keys; completes when the coroutine ends. */
    CompletableFuture<Outcome> call(String app, String path, Map<String, Object> extraScope) {
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        start(app, path, extraScope, outcome);
        return outcome;
    }

    CompletableFuture<Outcome> call(String app) {
        return call(app, "/", Map.of());
    }

    /** Starts a request and hands back its {@link Request} too (for cancellation tests). */
    Request startReturningRequest(String app, CompletableFuture<Outcome> outcome) {
        return start(app, "/", Map.of(), outcome);
    }

    private Request start(String app, String path, Map<String, Object> extraScope, CompletableFuture<Outcome> outcome) {
        List<Map<?, ?>> sent = new ArrayList<>();
        Invocation invocation = (gil, request) -> {
            Map<String, Object> scope = new LinkedHashMap<>();
            scope.put("type", "http");
            scope.put("path", path);
            scope.putAll(extraScope);
            try (PyRef apps = gil.importModule("apxtest.bridge_apps");
                 PyRef callable = apps.getAttr(gil, app);
                 PyRef receive = receiveFunction(gil);
                 PyRef send = gil.function("send", (g, args) -> {
                     sent.add((Map<?, ?>) args.get(0));
                     return doneFuture;
                 })) {
                return callable.call(gil, scope, receive, send);
            }
        };
        return bridge.start(invocation, (gil, request, result, error) -> outcome.complete(outcomeOf(sent, error, request)));
    }

    private PyRef receiveFunction(Gil gil) {
        return gil.function("receive", (g, args) -> {
            PyRef future = bridge.newFuture(g);
            future.callMethod(g, "set_result", Map.of("type", "http.request", "body", "hello".getBytes(StandardCharsets.UTF_8), "more_body", false)).close();
            return future;
        });
    }

    private static Outcome outcomeOf(List<Map<?, ?>> sent, PythonException error, Request request) {
        int status = 0;
        StringBuilder body = new StringBuilder();
        for (Map<?, ?> message : sent) {
            if ("http.response.start".equals(message.get("type"))) {
                status = ((Long) message.get("status")).intValue();
            } else if (message.get("body") instanceof byte[] bytes) {
                body.append(new String(bytes, StandardCharsets.UTF_8));
            }
        }
        return new Outcome(status, body.toString(), error == null ? null : error.pythonType(),
                error == null ? null : error.pythonMessage(), request.hops(), request.suspensions());
    }

    /** Runs {@code expression} of {@code apxtest.bridge_apps} on the loop thread and returns its value. */
    Object onLoop(java.util.function.Function<Gil, Object> action) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        bridge.runOnLoop(gil -> {
            try {
                result.complete(action.apply(gil));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        try {
            return result.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        python.run(gil -> doneFuture.close());
        bridge.close();
    }
}
