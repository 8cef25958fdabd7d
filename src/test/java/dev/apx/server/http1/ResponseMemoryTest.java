package dev.apx.server.http1;

import dev.apx.asgi.AsgiConfig;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.StartMode;
import dev.apx.config.LoopKind;
import dev.apx.python.PyRef;
import dev.apx.server.TestServer;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Response bodies are freed once written, in both start modes. The other server tests run in
 * CALLER mode, where Netty threads enter Python; in LOOP mode (the default with uvloop) only the
 * loop thread does, and it never leaves its outermost section, so anything that waits for "the
 * next entry" must not be waiting for that (see GilTest's queued-release test).
 */
class ResponseMemoryTest {
    private static final int REQUESTS = 400;
    private static final int BODY = 64 * 1024;

    @ParameterizedTest
    @EnumSource(value = StartMode.class, names = {"LOOP", "CALLER"})
    void freshBodiesAreFreedAfterTheyAreSent(StartMode mode) throws Exception {
        BridgeConfig bridge = BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO).withStartMode(mode);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (TestServer server = new TestServer("apxtest.http_apps", "app",
                ServerConfig.defaults().withAccessLog(false), AsgiConfig.defaults(), bridge)) {
            HttpRequest request = HttpRequest.newBuilder(server.uri("/fresh?" + BODY)).timeout(Duration.ofSeconds(30)).build();
            for (int i = 0; i < 20; i++) { // warm-up: connection, caches
                client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            }
            server.python.run(gil -> {
                try (PyRef values = gil.importModule("apxtest.values")) {
                    values.callMethod(gil, "start_tracing").close();
                }
            });
            for (int i = 0; i < REQUESTS; i++) {
                HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
                assertThat(response.body()).hasSize(BODY);
            }
            long held = server.python.call(gil -> {
                try (PyRef values = gil.importModule("apxtest.values"); PyRef bytes = values.callMethod(gil, "stop_tracing")) {
                    return ((Number) bytes.toJava(gil)).longValue();
                }
            });
            assertThat(held).as("bytes Python still holds after %d responses of %d bytes", REQUESTS, BODY)
                    .isLessThan(REQUESTS * (long) BODY / 10);
        }
    }
}
