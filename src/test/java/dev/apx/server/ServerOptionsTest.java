package dev.apx.server;

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

/** Server options that change what a client sees: --uds, --no-server-header/--no-date-header, --limit-concurrency. */
class ServerOptionsTest {
    @TempDir
    Path tmp;

    @Test
    void servesOnAUnixSocket() throws Exception {
        Path socket = tmp.resolve("apx.sock");
        ServerConfig d = ServerConfig.defaults();
        ServerConfig config = new ServerConfig(d.host(), 0, socket, d.backlog(), d.keepAliveTimeoutSeconds(), 0,
                false, false, d.maxInitialLineLength(), d.maxHeaderSize(), false, 1);
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

    private static void awaitInFlight(TestServer server, int count) throws InterruptedException {
        for (int i = 0; i < 3000 && server.server.inFlight() != count; i++) {
            Thread.sleep(10);
        }
        assertThat(server.server.inFlight()).as("requests in flight").isEqualTo(count);
    }
}
