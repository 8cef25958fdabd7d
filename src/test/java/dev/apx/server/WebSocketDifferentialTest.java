package dev.apx.server;

import dev.apx.python.TestPython;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The WebSocket suite against apx and against Uvicorn {@code --ws websockets} (3.11 venv), same
 * apps, same flags: every check must give the same result, except those below, each with why.
 */
class WebSocketDifferentialTest {
    /** Checks whose results differ on purpose, and apx's result for them. */
    private static final Map<String, String> DIFFERENT = Map.of(
            // After the app's websocket.close, apx's receive() repeats the app's own code, as Uvicorn's
            // wsproto implementation does; its websockets implementation answers 1005 instead.
            "server_close", "[4001, \"bye\", {\"after_close\": {\"code\": 4001, \"reason\": \"bye\", \"type\": \"websocket.disconnect\"}}]",
            // A fragmented message over --ws-max-size: apx closes with 1009 (message too big), the
            // websockets library with 1002 for this client.
            "max_size_fragmented", "[[], 1009]");

    @Test
    void apxAndUvicornAgree() throws Exception {
        assumeTrue(TestPython.install().minorVersion().equals("3.11"), "Uvicorn and the websockets client are in the 3.11 venv only");
        Map<String, String> fromApx;
        try (WebSocketServer apx = new WebSocketServer("apxtest.ws_apps", "app", WsSuite.config())) {
            fromApx = WsSuite.run(apx.address());
        }
        int port = WsSuite.freePort();
        Path log = Files.createTempFile("uvicorn-ws", ".log");
        Process uvicorn = WsSuite.uvicorn("apxtest.ws_apps:app", port, log);
        Map<String, String> fromUvicorn;
        try {
            fromUvicorn = WsSuite.run("127.0.0.1:" + port);
        } finally {
            uvicorn.destroy();
            uvicorn.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(fromApx.keySet()).isEqualTo(fromUvicorn.keySet());
        Map<String, String> apxSame = new HashMap<>(fromApx);
        Map<String, String> uvicornSame = new HashMap<>(fromUvicorn);
        for (Map.Entry<String, String> expected : DIFFERENT.entrySet()) {
            assertThat(apxSame.remove(expected.getKey())).as(expected.getKey()).isEqualTo(expected.getValue());
            uvicornSame.remove(expected.getKey());
        }
        assertThat(apxSame).isEqualTo(uvicornSame);
    }
}
