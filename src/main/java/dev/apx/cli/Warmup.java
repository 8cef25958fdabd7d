package dev.apx.cli;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.http.AsgiHttp;
import dev.apx.bridge.Bridge;
import dev.apx.log.Log;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.server.WarmupChannel;
import dev.apx.server.shared.ServerConfig;

import java.time.Duration;
import java.util.Map;

/**
 * {@code --warmup N}: N requests from an in-VM client through the server's pipeline, the ASGI
 * layer and the bridge to apx's built-in app ({@code _apx._hello}, never the user's), after the
 * lifespan startup and before the port opens. A warm-up that fails or times out is logged and
 * skipped: it only ever costs time.
 */
final class Warmup {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Warmup() {
    }

    static void run(Interpreter interpreter, Bridge bridge, ServerConfig config, AsgiConfig asgi, int requests) {
        long start = System.nanoTime();
        PyRef app = interpreter.call(gil -> {
            try (PyRef module = gil.importModule("_apx._hello")) {
                return module.getAttr(gil, "app");
            }
        });
        PyRef state = interpreter.call(gil -> gil.dict(Map.of()));
        try {
            int answered = WarmupChannel.run(config, new AsgiHttp(bridge, app, state, asgi), requests, TIMEOUT);
            Log.debug("warm-up: " + answered + " of " + requests + " requests answered in "
                    + (System.nanoTime() - start) / 1_000_000 + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            Log.warning("warm-up skipped: " + e);
        } finally {
            interpreter.run(gil -> {
                app.close();
                state.close();
            });
        }
    }
}
