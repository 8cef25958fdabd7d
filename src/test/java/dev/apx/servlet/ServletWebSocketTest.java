package dev.apx.servlet;

import dev.apx.Apx;
import dev.apx.AppOptions;
import dev.apx.PythonApp;
import dev.apx.PythonRuntime;
import dev.apx.python.TestPython;
import dev.apx.server.websocket.WebSocketRecorder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * WebSockets through ApxServlet in a real Jetty 12 (ee10) with its Jakarta WebSocket support, driven
 * by the JDK's WebSocket client and a raw socket: the app's websocket scope, accept, echo, closes
 * both ways, denials. Also the servlet's root path: the context path + servlet path, as ASGI's mount point.
 */
class ServletWebSocketTest {
    private static final Path TEST_APPS = Path.of("target/test-classes/python");
    private static PythonApp ws;
    private static PythonApp mounted;
    private static Server jetty;
    private static int port;
    private static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        PythonRuntime python = Apx.python(TestPython.python());
        ws = python.app(AppOptions.of("apxjava.apps:ws_mounted", TEST_APPS));
        mounted = python.app(AppOptions.of("apxjava.mounted:app", TEST_APPS));
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/ctx");
        JakartaWebSocketServletContainerInitializer.configure(context, null);
        for (var mount : new Object[][]{{ws, "/ws/*"}, {mounted, "/v312/*"}}) {
            ServletHolder holder = new ServletHolder(new ApxServlet((PythonApp) mount[0]));
            holder.setAsyncSupported(true);
            context.addServlet(holder, (String) mount[1]);
        }
        jetty.setHandler(context);
        jetty.start();
        port = connector.getLocalPort();
        client = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        jetty.stop();
        ws.close();
        mounted.close();
    }

    private static WebSocket connect(String path, WebSocketRecorder recorder, String... subprotocols) throws Exception {
        WebSocket.Builder builder = client.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(20));
        if (subprotocols.length > 0) {
            builder.subprotocols(subprotocols[0], Arrays.copyOfRange(subprotocols, 1, subprotocols.length));
        }
        return builder.buildAsync(URI.create("ws://127.0.0.1:" + port + "/ctx/ws" + path), recorder).get(20, TimeUnit.SECONDS);
    }

    /** What the app recorded for the connection with this query string (apxtest.ws_apps' /seen). */
    private static String seen(String id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String body;
        do {
            body = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ctx/ws/seen?" + id)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            if (!body.equals("null")) {
                return body;
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        return body;
    }

    @Test
    void echoesTextAndBinaryAndSeesTheClientsCloseCode() throws Exception {
        WebSocketRecorder recorder = new WebSocketRecorder();
        WebSocket socket = connect("/echo?client-close", recorder, "other", "chat");
        assertThat(socket.getSubprotocol()).as("the app picked 'chat'").isEqualTo("chat");
        socket.sendText("héllo", true).get(20, TimeUnit.SECONDS);
        assertThat(recorder.next()).isEqualTo("héllo");
        byte[] data = new byte[1024 * 1024]; // above Jetty's default 64 KiB limit: the servlet sets apx's 16 MiB
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        socket.sendBinary(ByteBuffer.wrap(data), true).get(20, TimeUnit.SECONDS);
        assertThat((byte[]) recorder.next()).isEqualTo(data);
        for (int i = 0; i < 200; i++) {
            socket.sendText("m" + i, true);
        }
        for (int i = 0; i < 200; i++) {
            assertThat(recorder.next()).isEqualTo("m" + i);
        }
        socket.sendClose(4002, "done").get(20, TimeUnit.SECONDS);
        assertThat(recorder.closed.get(20, TimeUnit.SECONDS)).startsWith("4002");
        assertThat(seen("client-close")).isEqualTo("{\"code\": 4002}");
    }

    @Test
    void aSlowReaderGetsEveryMessageWholeAndInOrder() throws Exception {
        // the app reads nothing for 0.3 s: its queue fills (32 messages), the container's thread waits, nothing is lost
        WebSocketRecorder recorder = new WebSocketRecorder();
        WebSocket socket = connect("/slow-reader?slow", recorder);
        for (int i = 0; i < 200; i++) {
            byte[] data = new byte[16 * 1024];
            java.util.Arrays.fill(data, (byte) i);
            socket.sendBinary(ByteBuffer.wrap(data), true).get(20, TimeUnit.SECONDS);
        }
        socket.sendClose(1000, "").get(20, TimeUnit.SECONDS);
        assertThat(seen("slow")).isEqualTo("{\"received\": 200}");
    }

    @Test
    void theAppClosesWithItsCode() throws Exception {
        WebSocketRecorder recorder = new WebSocketRecorder();
        WebSocket socket = connect("/close-code?app-close", recorder);
        socket.sendText("go", true);
        assertThat(recorder.closed.get(20, TimeUnit.SECONDS)).isEqualTo("4001 bye");
        assertThat(seen("app-close")).contains("\"type\": \"websocket.disconnect\"", "\"code\": 4001");
    }

    @Test
    void theScopeIsTheWebsocketScopeBelowTheMountPoint() throws Exception {
        WebSocketRecorder recorder = new WebSocketRecorder();
        connect("/scope?a=1", recorder);
        String scope = (String) recorder.next();
        assertThat(scope).contains("\"type\": \"websocket\"", "\"scheme\": \"ws\"", "\"path\": \"/ctx/ws/scope\"",
                "\"root_path\": \"/ctx/ws\"", "\"http_version\": \"1.1\"", "\"query_string\": \"a=1\"",
                "\"raw_path\": \"/ctx/ws/scope\"", "\"has_method\": false");
        assertThat(recorder.closed.get(20, TimeUnit.SECONDS)).startsWith("1000");
    }

    @Test
    void theHandshakeCarriesTheAppsHeadersAndSubprotocol() throws Exception {
        String head = rawHandshake("/ctx/ws/echo?raw", "Sec-WebSocket-Protocol: chat\r\n", true);
        assertThat(head).startsWith("HTTP/1.1 101 ");
        assertThat(head.toLowerCase()).contains("x-echo: yes", "sec-websocket-protocol: chat",
                "sec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo=");
    }

    @Test
    void aCloseBeforeAcceptIsA403() throws Exception {
        assertThat(rawHandshake("/ctx/ws/deny", "", false)).startsWith("HTTP/1.1 403 ");
    }

    @Test
    void aDenialResponseReachesTheClient() throws Exception {
        String response = rawHandshake("/ctx/ws/deny-response", "", false);
        assertThat(response).startsWith("HTTP/1.1 401 ");
        assertThat(response.toLowerCase()).contains("x-why: no token");
        assertThat(response).endsWith("\r\n\r\nnope, go away");
    }

    @Test
    void anAppThatFailsBeforeAcceptingIsA500AndAfterIt1011() throws Exception {
        assertThat(rawHandshake("/ctx/ws/raise-before-accept", "", false)).startsWith("HTTP/1.1 500 ");
        WebSocketRecorder recorder = new WebSocketRecorder();
        connect("/raise-after-accept", recorder);
        assertThat(recorder.closed.get(20, TimeUnit.SECONDS)).startsWith("1011");
    }

    @Test
    void anInvalidHandshakeIsRefusedWithoutTheApp() throws Exception {
        String response = rawHandshake("/ctx/ws/echo?v", "", false, "8");
        assertThat(response).startsWith("HTTP/1.1 426 ");
        assertThat(response.toLowerCase()).contains("sec-websocket-version: 13");
    }

    @Test
    void theMountPointIsTheRootPath() throws Exception {
        String body = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ctx/v312/x")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(body).isEqualTo("{\"path\":\"/ctx/v312/x\",\"root_path\":\"/ctx/v312\",\"url\":\"http://127.0.0.1:" + port
                + "/ctx/v312/x\",\"url_for\":\"http://127.0.0.1:" + port + "/ctx/v312/x\"}");
    }

    /**
     * An opening handshake with RFC 6455's sample key; the response head (when {@code upgraded}) or
     * the whole response up to the server's close (the request then also asks for the close, so that a
     * plain HTTP answer ends too).
     */
    static String rawHandshake(String target, String extraHeaders, boolean upgraded) throws Exception {
        return rawHandshake(target, extraHeaders, upgraded, "13");
    }

    static String rawHandshake(String target, String extraHeaders, boolean upgraded, String version) throws Exception {
        return rawHandshake(port, target, extraHeaders, upgraded, version);
    }

    static String rawHandshake(int port, String target, String extraHeaders, boolean upgraded, String version) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade"
                    + (upgraded ? "" : ", close") + "\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: " + version + "\r\n" + extraHeaders + "\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int b = in.read(); b >= 0; b = in.read()) {
                out.write(b);
                if (upgraded && out.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                    break;
                }
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
