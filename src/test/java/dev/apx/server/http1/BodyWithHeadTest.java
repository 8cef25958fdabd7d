package dev.apx.server.http1;

import dev.apx.asgi.AsgiConfig;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.StartMode;
import dev.apx.config.LoopKind;
import dev.apx.server.RawHttp;
import dev.apx.server.TestServer;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request body that arrives with its head is queued before the app starts, so the app's first
 * {@code receive()} answers at once: no suspension, no trip through the event loop (HttpCycle.startAfterRead).
 * With CALLER, an I/O thread drives the app's first step inline; before, that step ran before the
 * body was decoded, and every POST waited once (echo-4k with asyncio, keep-alive: 1.36x req/s once it stopped).
 */
class BodyWithHeadTest {

    @ParameterizedTest
    @EnumSource(value = StartMode.class, names = {"CALLER", "LOOP"})
    void aBodySentWithItsHeadIsReadWithoutASuspension(StartMode mode) throws Exception {
        try (TestServer server = new TestServer("apxtest.http_apps", "app", ServerConfig.defaults().withAccessLog(false), AsgiConfig.defaults(),
                BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO).withStartMode(mode))) {
            List<Integer> suspensions = new CopyOnWriteArrayList<>();
            server.bridge.observe((hops, waits) -> suspensions.add(waits));
            String body = "x".repeat(1000); // head and body within the first read (Netty's first guess is 2 KiB)
            String response = RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.length()
                    + "\r\nConnection: close\r\n\r\n" + body);
            assertThat(response).startsWith("HTTP/1.1 200 ").endsWith(body);
            for (long deadline = System.nanoTime() + 5_000_000_000L; suspensions.isEmpty() && System.nanoTime() < deadline; ) {
                Thread.sleep(5); // the coroutine ends just after its last send
            }
            assertThat(suspensions).as("suspensions of the request's coroutine").containsExactly(0);
        }
    }
}
