package dev.apx.server;

import dev.apx.python.TestPython;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Server options that change what a client sees: --uds, --no-server-header/--no-date-header, --limit-concurrency. */
class ServerOptionsTest {
    @TempDir
    Path tmp;

    @Test
    void servesOnAUnixSocket() throws Exception {
        Path socket = tmp.resolve("apx.sock");
        ServerConfig config = ServerConfig.builder().port(0).uds(socket).serverHeader(false).dateHeader(false).accessLog(false)
                .workerThreads(1).build();
        try (TestServer server = new TestServer("apxtest.http_apps", "app", config);
             SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap("GET /scope HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)));
            String response = RawHttp.readAll(Channels.newInputStream(channel));

            assertThat(response).startsWith("HTTP/1.1 200 OK\r\n")
                    .doesNotContain("server: apx").doesNotContain("\r\ndate: ")
                    .contains("\"server\": [\"" + socket + "\", null]")
                    .contains("\"client\": null");
        }
    }

    @Test
    void requestsBeyondTheConcurrencyLimitGet503() throws Exception {
        ServerConfig config = ServerConfig.defaults().withAccessLog(false).withLimitConcurrency(1);
        try (TestServer server = new TestServer("apxtest.http_apps", "app", config)) {
            try (java.net.Socket busy = new java.net.Socket("127.0.0.1", server.port())) {
                busy.getOutputStream().write("GET /sleep HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                busy.getOutputStream().flush();
                awaitInFlight(server, 1);
                String refused = RawHttp.exchange(server.port(), "GET /echo HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
                assertThat(refused).startsWith("HTTP/1.1 503 Service Unavailable\r\n").endsWith("Service Unavailable");
            }
            awaitInFlight(server, 0); // the disconnect ended the sleeping request
            String accepted = RawHttp.exchange(server.port(), "GET /echo HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            assertThat(accepted).startsWith("HTTP/1.1 200 OK");
        }
    }

    /**
     * {@code --timeout-keep-alive 1}: a connection left idle after its response is closed by the
     * server (the read sees the end of the stream well before its own 8 s limit), while one whose
     * request takes 1.5 s, longer than the timeout, gets its response and stays usable. Netty only:
     * runs in the 3.11 fork alone, to keep the suite short.
     */
    @Test
    void idleKeepAliveConnectionIsClosedButABusyOneIsNot() throws Exception {
        assumeTrue(TestPython.install().minorVersion().equals("3.11"), "the same in every Python; run once");
        ServerConfig config = ServerConfig.builder().port(0).keepAliveTimeoutSeconds(1).accessLog(false).workerThreads(1).build();
        try (TestServer server = new TestServer("apxtest.http_apps", "app", config);
             java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(8_000);
            java.io.OutputStream out = socket.getOutputStream();
            java.io.InputStream in = socket.getInputStream();
            out.write("GET /delay?1.5 HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            assertThat(RawHttp.read(in, false).body()).isEqualTo("slept");
            out.write("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nagain".getBytes(StandardCharsets.ISO_8859_1));
            assertThat(RawHttp.read(in, false).body()).as("the busy connection was kept").isEqualTo("again");

            assertThat(in.read()).as("end of stream: the idle connection was closed").isEqualTo(-1);
        }
    }

    private static void awaitInFlight(TestServer server, int count) throws InterruptedException {
        for (int i = 0; i < 3000 && server.server.inFlight() != count; i++) {
            Thread.sleep(10);
        }
        assertThat(server.server.inFlight()).as("requests in flight").isEqualTo(count);
    }
}
