package dev.apx.server;

import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Overload: {@code --limit-concurrency} answers 503 at once beyond the limit instead of queuing,
 * and {@code --backlog} reaches the kernel's listen queue. (--limit-max-requests stops the
 * process: LimitsIT.) In the 3.11 fork only.
 */
class OverloadTest {
    @BeforeAll
    static void once() {
        OnceOnly.inThe311Fork();
    }

    @Test
    void beyondTheConcurrencyLimitEveryRequestGets503WithoutQueuing() throws Exception {
        ServerConfig config = ServerConfig.defaults().withAccessLog(false).withLimitConcurrency(2);
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", config)) {
            List<Socket> busy = new ArrayList<>();
            ExecutorService clients = Executors.newFixedThreadPool(20);
            try {
                for (int i = 0; i < 2; i++) {
                    Socket socket = new Socket("127.0.0.1", server.port());
                    socket.getOutputStream().write("GET /sleep HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    busy.add(socket);
                }
                awaitInFlight(server, 2);
                AtomicInteger maxInFlight = new AtomicInteger();
                List<Future<String>> answers = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    answers.add(clients.submit(() -> {
                        String response = RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nok");
                        maxInFlight.accumulateAndGet(server.server.inFlight(), Math::max);
                        return response;
                    }));
                }
                for (Future<String> answer : answers) {
                    assertThat(answer.get()).startsWith("HTTP/1.1 503 Service Unavailable\r\n").contains("connection: close\r\n")
                            .doesNotContain("TIMEOUT"); // answered and closed while the two slots stay busy
                }
                assertThat(maxInFlight.get()).as("requests in flight at most").isEqualTo(2);
            } finally {
                clients.shutdownNow();
                for (Socket socket : busy) {
                    socket.close();
                }
            }
            awaitInFlight(server, 0);
            assertThat(RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
                    .startsWith("HTTP/1.1 200 ");
        }
    }

    @Test
    void theBacklogReachesTheListenSocket() throws Exception {
        ServerConfig config = ServerConfig.defaults().withAccessLog(false).withBacklog(17);
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", config)) {
            // for a listening socket, ss shows the backlog in Send-Q
            String listening = command("ss", "-Hltn", "sport = :" + server.port());
            assertThat(listening.strip()).as(listening).matches("LISTEN\\s+0\\s+17\\s+.*:" + server.port() + "\\s.*");
        }
    }

    private static String command(String... args) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(args).redirectErrorStream(true).start();
        } catch (IOException e) {
            assumeTrue(false, "no " + args[0] + " here");
            throw e;
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(out).isZero();
        return out;
    }

    private static void awaitInFlight(TestServer server, int count) throws InterruptedException {
        for (int i = 0; i < 1000 && server.server.inFlight() != count; i++) {
            Thread.sleep(10);
        }
        assertThat(server.server.inFlight()).as("requests in flight").isEqualTo(count);
    }
}
