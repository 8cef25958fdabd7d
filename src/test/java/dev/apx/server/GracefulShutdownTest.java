package dev.apx.server;

import dev.apx.asgi.AsgiConfig;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.StartMode;
import dev.apx.config.LoopKind;
import dev.apx.server.shared.ServerConfig;

import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The graceful shutdown as a client meets it over a real socket: a connection the server accepted
 * just before it stopped accepting (its client still writing the request) gets its answer. This
 * is what a rolling restart under load hits (the old worker stops while new connections arrive).
 */
class GracefulShutdownTest {

    @Test
    void aConnectionAcceptedJustBeforeTheShutdownHasItsFirstRequestServed() throws Exception {
        try (TestServer server = new TestServer("apxtest.http_apps", "app");
             Socket socket = acceptedThenStopped(server)) {
            CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.server.drain(Duration.ofSeconds(10));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300); // the client is slow to write its request
            assertThat(drained).as("the drain waits for the request on the way").isNotDone();
            OutputStream out = socket.getOutputStream();
            out.write("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String response = RawHttp.readAll(socket.getInputStream());
            assertThat(response).startsWith("HTTP/1.1 200 ").contains("\r\nconnection: close\r\n").endsWith("hello");
            assertThat(drained.get()).isTrue();
        }
    }

    @Test
    void anUnusedConnectionDoesNotHoldTheShutdownLongerThanTheGrace() throws Exception {
        try (TestServer server = new TestServer("apxtest.http_apps", "app");
             Socket ignored = acceptedThenStopped(server)) {
            long started = System.nanoTime();
            assertThat(server.server.drain(Duration.ofSeconds(30))).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .isGreaterThanOrEqualTo(Server.FIRST_REQUEST_GRACE.minusMillis(50))
                    .isLessThan(Server.FIRST_REQUEST_GRACE.plusSeconds(5));
        }
    }

    /**
     * With Netty's threads, the acceptor queues each new connection to an I/O thread. The shutdown
     * can start between the two (here: both I/O threads are busy), and the connection is still served.
     */
    @Test
    void aConnectionStillOnItsWayToAnIoThreadWhenTheShutdownStartsIsServed() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (TestServer server = new TestServer("apxtest.http_apps", "app", ServerConfig.defaults().withAccessLog(false), AsgiConfig.defaults(),
                BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO).withStartMode(StartMode.CALLER))) { // as the CLI's default --io threads
            assertThat(server.server.hosted()).as("this test is about Netty's own I/O threads").isFalse();
            for (EventExecutor thread : server.server.ioThreads()) {
                thread.execute(() -> {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.setSoTimeout(10_000);
                awaitAccepted(server.port());
                server.server.stopAccepting();
                CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> {
                    try {
                        return server.server.drain(Duration.ofSeconds(10));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                Thread.sleep(300);
                assertThat(drained).as("the drain waits for the connection on its way to an I/O thread").isNotDone();
                release.countDown();
                OutputStream out = socket.getOutputStream();
                out.write("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                assertThat(RawHttp.readAll(socket.getInputStream())).startsWith("HTTP/1.1 200 ").endsWith("hello");
                assertThat(drained.get()).isTrue();
            } finally {
                release.countDown(); // before the server closes: it waits for its threads
            }
        }
    }

    /** Waits until the kernel's accept queue of the listening socket on {@code port} is empty (/proc/net/tcp: rx_queue of the LISTEN line). */
    private static void awaitAccepted(int port) throws IOException, InterruptedException {
        String local = String.format("0100007F:%04X", port);
        Thread.sleep(100); // the handshake's last ACK reaches the listener
        for (long deadline = System.nanoTime() + 10_000_000_000L; ; Thread.sleep(5)) {
            long queued = Files.readAllLines(Path.of("/proc/net/tcp")).stream().map(line -> line.trim().split("\\s+"))
                    .filter(f -> f[1].equals(local) && f[3].equals("0A")).mapToLong(f -> Long.parseLong(f[4].split(":")[1], 16)).sum();
            if (queued == 0) {
                return;
            }
            assertThat(System.nanoTime()).as("the server accepted the connection").isLessThan(deadline);
        }
    }

    /** A connection the server has accepted, with nothing sent on it yet; then the server stops accepting. */
    private static Socket acceptedThenStopped(TestServer server) throws IOException, InterruptedException {
        Socket socket = new Socket("127.0.0.1", server.port());
        socket.setSoTimeout(10_000);
        for (long deadline = System.nanoTime() + 10_000_000_000L; server.server.openConnections() == 0; Thread.sleep(5)) {
            assertThat(System.nanoTime()).as("the server accepted the connection").isLessThan(deadline);
        }
        server.server.stopAccepting();
        return socket;
    }
}
