package dev.apx.server.websocket;

import dev.apx.server.RawHttp;
import dev.apx.server.TestServer;
import dev.apx.server.api.WebSocketConfig;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The upgrade on every Python (3.11, 3.12, 3.13): JDK's own WebSocket client against the raw ASGI
 * apps, raw sockets for what it cannot send, and {@code --ws none}. The full suite is
 * {@link WebSocketTest} (3.11).
 */
class WebSocketUpgradeTest {
    private static final String KEY = "dGhlIHNhbXBsZSBub25jZQ=="; // RFC 6455's example: accept is s3pPLMBiTxaQ9kYGzzhZRbK+xOo=

    @Test
    void echoesThroughTheJdkClientWithTheChosenSubprotocol() throws Exception {
        try (TestServer server = TestServer.withWebSockets("apxtest.ws_apps", "app", WebSocketConfig.defaults())) {
            WebSocketRecorder inbox = new WebSocketRecorder();
            WebSocket socket = HttpClient.newHttpClient().newWebSocketBuilder().subprotocols("chat", "other")
                    .buildAsync(URI.create("ws://" + server.address() + "/echo?jdk"), inbox).get(10, TimeUnit.SECONDS);
            assertThat(socket.getSubprotocol()).isEqualTo("chat");
            socket.sendText("héllo", true).get(10, TimeUnit.SECONDS);
            assertThat(inbox.next()).isEqualTo("héllo");
            socket.sendBinary(ByteBuffer.wrap(new byte[]{0, 1, 2, (byte) 255}), true).get(10, TimeUnit.SECONDS);
            assertThat((byte[]) inbox.next()).containsExactly(0, 1, 2, 255);
            socket.sendText("fragm", false).get(10, TimeUnit.SECONDS);
            socket.sendText("ented", true).get(10, TimeUnit.SECONDS);
            assertThat(inbox.next()).isEqualTo("fragmented");
            socket.sendClose(4000, "bye").get(10, TimeUnit.SECONDS);
            assertThat(inbox.next()).isEqualTo("close 4000 ");
            assertThat(seenSoon(server.port(), "jdk")).contains("{\"code\": 4000}");
        }
    }

    /**
     * What the app recorded at /seen?ID, once it has: the app gets the disconnect on the loop
     * thread, and the client may ask before that has run (as ws_suite.py's seen_soon).
     */
    private static String seenSoon(int port, String id) throws Exception {
        String answer = "";
        for (int attempt = 0; attempt < 100; attempt++) {
            answer = RawHttp.exchange(port, "GET /seen?" + id + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            if (!answer.contains("null")) { // the body is JSON null until the app has recorded something
                return answer;
            }
            Thread.sleep(50);
        }
        return answer;
    }

    @Test
    void shutdownClosesOpenWebSocketsWith1012() throws Exception {
        WebSocketRecorder inbox = new WebSocketRecorder();
        try (TestServer server = TestServer.withWebSockets("apxtest.ws_apps", "app", WebSocketConfig.defaults())) {
            WebSocket socket = HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create("ws://" + server.address() + "/echo?shutdown"), inbox).get(10, TimeUnit.SECONDS);
            socket.sendText("x", true).get(10, TimeUnit.SECONDS);
            assertThat(inbox.next()).isEqualTo("x");
        } // close(): stop accepting, then drain
        assertThat(inbox.next()).isEqualTo("close 1012 ");
    }

    @Test
    void handshakeResponseFollowsRfc6455() throws Exception {
        try (TestServer server = TestServer.withWebSockets("apxtest.ws_apps", "app", WebSocketConfig.defaults())) {
            String answer = RawHttp.exchange(server.port(), upgrade("/deny", "13"));
            assertThat(answer).startsWith("HTTP/1.1 403 ");
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(upgrade("/echo", "13").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                byte[] head = new byte[4096];
                int n = socket.getInputStream().read(head);
                String response = new String(head, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT);
                assertThat(response).startsWith("http/1.1 101 ")
                        .contains("upgrade: websocket", "connection: upgrade", "sec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo=",
                                "x-echo: yes", "server: apx");
            }
        }
    }

    @Test
    void invalidHandshakesAreRefusedWithoutTheApp() throws Exception {
        try (TestServer server = TestServer.withWebSockets("apxtest.ws_apps", "app", WebSocketConfig.defaults())) {
            assertThat(RawHttp.exchange(server.port(), upgrade("/echo", "8"))).startsWith("HTTP/1.1 426 ").contains("sec-websocket-version: 13");
            assertThat(RawHttp.exchange(server.port(), upgrade("/echo", "13").replace("Sec-WebSocket-Key: " + KEY + "\r\n", "")))
                    .startsWith("HTTP/1.1 400 ");
            assertThat(RawHttp.exchange(server.port(), upgrade("/echo", "13").replace("GET ", "POST ")))
                    .startsWith("HTTP/1.1 400 ");
        }
    }

    @Test
    void wsNoneHandsTheUpgradeToTheAppAsHttp() throws Exception {
        try (TestServer server = TestServer.withWebSockets("apxtest.ws_apps", "app", WebSocketConfig.disabled())) {
            String upgrading = RawHttp.exchange(server.port(), upgrade("/echo", "13").replace("Connection: Upgrade", "Connection: Upgrade, close"));
            assertThat(upgrading).startsWith("HTTP/1.1 200 ").contains("{\"http\": \"/echo\", \"upgrade\": \"websocket\"}");
        }
    }

    private static String upgrade(String path, String version) {
        return String.join("\r\n", List.of("GET " + path + " HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket",
                "Connection: Upgrade", "Sec-WebSocket-Key: " + KEY, "Sec-WebSocket-Version: " + version)) + "\r\n\r\n";
    }
}
