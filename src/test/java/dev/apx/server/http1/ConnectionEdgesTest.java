package dev.apx.server.http1;

import dev.apx.server.AppState;
import dev.apx.server.OnceOnly;
import dev.apx.server.RawHttp;
import dev.apx.server.TestServer;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How an HTTP/1.1 connection ends and waits, over raw sockets to {@code apxtest.hostile_apps}: a
 * client that half-closes after its request is answered; {@code 100 Continue} goes out when the
 * app asks for the body, not before; the server's own refusals (414, 431) end with a FIN after the
 * response, not a reset that can destroy it. In the 3.11 fork only ({@link OnceOnly}).
 */
class ConnectionEdgesTest {
    private static TestServer server;

    @BeforeAll
    static void start() {
        OnceOnly.inThe311Fork();
        server = new TestServer("apxtest.hostile_apps", "app", ServerConfig.defaults().withAccessLog(false));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (server != null) {
            server.close();
        }
    }

    private static Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", server.port());
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static void send(Socket socket, String bytes) throws IOException {
        socket.getOutputStream().write(bytes.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    @Test
    void aRequestFollowedByTheClientsFinIsAnswered() throws Exception {
        try (Socket socket = connect()) {
            send(socket, "GET /half-closed HTTP/1.1\r\nHost: x\r\n\r\n");
            socket.shutdownOutput();
            assertThat(RawHttp.readAll(socket.getInputStream())).startsWith("HTTP/1.1 200 ").endsWith("0 bytes");
        }
        try (Socket socket = connect()) { // pipelined, with a body each, then the FIN: every one answered, in order
            send(socket, "POST /half-a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok"
                    + "POST /sleep?0.3 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                    + "POST /half-b HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd");
            socket.shutdownOutput();
            String all = RawHttp.readAll(socket.getInputStream());
            assertThat(all.split("HTTP/1.1 200 ", -1)).as(all).hasSize(4);
            assertThat(all).contains("2 bytes").contains("slept").endsWith("4 bytes");
        }
    }

    @Test
    void aFinInsideABodyEndsTheConnectionAndTheAppSeesADisconnect() throws Exception {
        String before = AppState.stats(server.port());
        try (Socket socket = connect()) {
            send(socket, "POST /half-body HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
            socket.shutdownOutput();
            assertThat(RawHttp.readAll(socket.getInputStream())).as("no answer, no wait").isEmpty();
        }
        AppState.awaitIdle(server.port());
        assertThat(AppState.count(AppState.stats(server.port()), "disconnect")).isEqualTo(AppState.count(before, "disconnect") + 1);
    }

    @Test
    void continueGoesOutOnlyWhenTheAppAsksForTheBody() throws Exception {
        try (Socket socket = connect()) { // the app answers without reading: no 100, and the connection closes after
            send(socket, "POST /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n");
            String response = RawHttp.readAll(socket.getInputStream());
            assertThat(response).startsWith("HTTP/1.1 200 ").doesNotContain("100 Continue").contains("connection: close\r\n")
                    .endsWith("ignored");
        }
        try (Socket socket = connect()) { // the app asks after 1 s: the 100 comes then, not before
            send(socket, "POST /later?1 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n");
            socket.setSoTimeout(500);
            InputStream in = socket.getInputStream();
            assertThat(readsNothing(in)).as("nothing within 0.5 s, while the app sleeps").isTrue();
            socket.setSoTimeout(10_000);
            String interim = new String(in.readNBytes("HTTP/1.1 100 Continue\r\n\r\n".length()), StandardCharsets.ISO_8859_1);
            assertThat(interim).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
            send(socket, "data");
            assertThat(RawHttp.readAll(in)).startsWith("HTTP/1.1 200 ").endsWith("4 bytes");
        }
    }

    private static boolean readsNothing(InputStream in) throws IOException {
        try {
            in.read();
            return false;
        } catch (SocketTimeoutException e) {
            return true;
        }
    }

    @Test
    void aRequestLineTooLongGetsIts414AndAFinNotAReset() throws Exception {
        refusedWithoutReset("GET /", 414);
    }

    @Test
    void headerFieldsTooLargeGetTheir431AndAFinNotAReset() throws Exception {
        refusedWithoutReset("GET / HTTP/1.1\r\nHost: x\r\nX-Big: ", 431);
    }

    /**
     * {@code start}, then 4 MiB more of the same line while the server refuses after its first
     * kilobytes: a server that closes with bytes unread resets the connection (no FIN), and over a
     * network the reset can destroy the response; here the client's read after it fails with a reset.
     */
    private static void refusedWithoutReset(String start, int status) throws Exception {
        try (Socket socket = connect()) {
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    send(socket, start);
                    byte[] more = "a".repeat(64 * 1024).getBytes(StandardCharsets.ISO_8859_1);
                    for (int i = 0; i < 64; i++) {
                        socket.getOutputStream().write(more);
                    }
                    socket.shutdownOutput();
                } catch (IOException e) {
                    // reset under our writes: the reader says what it means for the response
                }
            });
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = socket.getInputStream().read(buffer)) >= 0; ) {
                    got.write(buffer, 0, n);
                }
            } catch (SocketException e) {
                assertThat(e).as("read after %s", got.toString(StandardCharsets.ISO_8859_1)).isNull();
            } finally {
                writer.join(10_000);
            }
            assertThat(got.toString(StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 " + status + " ").contains("connection: close\r\n");
        }
    }
}
