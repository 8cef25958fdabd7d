package dev.apx.server;

import dev.apx.asgi.AsgiConfig;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.StartMode;
import dev.apx.config.LoopKind;
import dev.apx.python.TestPython;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code --io loop}: the asyncio loop thread runs the sockets' I/O (docs/server.md, "One thread").
 * What a user would notice if it went wrong: extra threads, or a keep-alive connection that stalls
 * when the response came from one of the app's own tasks.
 */
class HostedIoTest {

    /** Serving 20 connections × 10 requests starts no thread at all: Netty has none of its own here. */
    @Test
    void servingStartsNoIoThreads() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(20);
        try (TestServer server = hosted()) {
            assertThat(server.server.hosted()).isTrue();
            List<Future<?>> warm = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                warm.add(clients.submit(() -> RawHttp.exchange(server.port(), "GET /echo HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")));
            }
            for (Future<?> f : warm) {
                f.get();
            }
            Set<Long> before = liveThreads();
            List<Future<String>> done = new ArrayList<>();
            for (int c = 0; c < 20; c++) {
                done.add(clients.submit(() -> keepAliveRequests(server.port(), 10)));
            }
            for (Future<String> f : done) {
                assertThat(f.get()).isEqualTo("x".repeat(10));
            }
            Set<Long> after = liveThreads();
            after.removeAll(before);
            assertThat(after.stream().map(id -> Thread.getAllStackTraces().keySet().stream().filter(t -> t.threadId() == id)
                    .map(Thread::getName).findFirst().orElse("?")).collect(Collectors.toList()))
                    .as("threads started while serving").isEmpty();
        } finally {
            clients.shutdownNow();
        }
    }

    /**
     * The response comes from a task of the app's own, which lingers 6 s after it, with
     * {@code Connection: close}. The close must not wait for the task, nor for the loop's next
     * call into apx: the work the task's {@code send()} left for the I/O loop (the end of the
     * exchange, here the close) runs at once.
     */
    @Test
    void aResponseSentByTheAppsOwnTaskEndsItsExchangeAtOnce() throws Exception {
        assumeTrue(TestPython.install().minorVersion().equals("3.11"), "the same in every Python; run once");
        try (TestServer server = hosted();
             Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(20_000);
            long began = System.nanoTime();
            socket.getOutputStream().write("GET /from-task?6 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            assertThat(RawHttp.readAll(socket.getInputStream())).endsWith("\r\n\r\nfrom a task");
            assertThat((System.nanoTime() - began) / 1_000_000).as("ms until the connection was closed").isLessThan(3_000);
        }
    }

    private static String keepAliveRequests(int port, int count) throws Exception {
        StringBuilder bodies = new StringBuilder();
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            for (int i = 0; i < count; i++) {
                out.write(("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n\r\nx").getBytes(StandardCharsets.ISO_8859_1));
                bodies.append(RawHttp.read(in, false).body());
            }
        }
        return bodies.toString();
    }

    private static Set<Long> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::threadId).collect(Collectors.toSet());
    }

    /** LOOP start mode, whatever the lane's default: the loop thread hosts the I/O. */
    private static TestServer hosted() {
        return new TestServer("apxtest.http_apps", "app", ServerConfig.defaults().withAccessLog(false), AsgiConfig.defaults(),
                BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO).withStartMode(StartMode.LOOP));
    }
}
