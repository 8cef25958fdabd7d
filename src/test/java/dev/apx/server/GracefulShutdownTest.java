package dev.apx.server;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

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
