package dev.apx.servlet;

import dev.apx.AppOptions;
import dev.apx.Apx;
import dev.apx.PythonApp;
import dev.apx.PythonRuntime;
import dev.apx.config.Interface;
import dev.apx.python.TestPython;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** ApxServlet in a real Jetty 12 (ee10) with real clients: the JDK's HttpClient and a raw socket. */
class ApxServletTest {
    private static final Path TEST_APPS = Path.of("target/test-classes/python");
    private static PythonApp echo;
    private static PythonApp fastapi;
    private static PythonApp wsgi;
    private static Server jetty;
    private static String base;
    private static String tlsBase;
    private static dev.apx.server.tls.TestCerts certs;
    private static Path log;
    private static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        PythonRuntime python = Apx.python(TestPython.python());
        log = Files.createTempFile("apx-servlet", ".log");
        echo = python.app(AppOptions.of("apxjava.apps:echo", TEST_APPS).withEnv(Map.of("APX_JAVA_TEST_LOG", log.toString())));
        fastapi = python.app("fastapi_app:app", Path.of("examples"));
        wsgi = python.app(AppOptions.of("apxjava.apps:wsgi_echo", TEST_APPS).withInterface(Interface.WSGI));
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        certs = new dev.apx.server.tls.TestCerts(Files.createTempDirectory("apx-servlet-tls"));
        ServerConnector https = httpsConnector(jetty);
        jetty.addConnector(https);
        ServletContextHandler context = new ServletContextHandler("/ctx");
        mount(context, new ApxServlet(echo), "/py/*");
        if (fastapi != null) {
            mount(context, new ApxServlet(fastapi), "/fastapi/*");
        }
        mount(context, new ApxServlet(wsgi), "/wsgi/*");
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                response.setContentType("text/plain");
                response.getWriter().print("from java");
            }
        }), "/java");
        jetty.setHandler(context);
        jetty.start();
        base = "http://127.0.0.1:" + connector.getLocalPort() + "/ctx";
        tlsBase = "https://localhost:" + https.getLocalPort() + "/ctx";
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    /** HTTPS with the test CA's server certificate, asking for a client certificate. */
    private static ServerConnector httpsConnector(Server server) throws Exception {
        String pem = Files.readString(certs.serverKey).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        java.security.PrivateKey key = java.security.KeyFactory.getInstance("RSA")
                .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(java.util.Base64.getDecoder().decode(pem)));
        java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("server", key, "pw".toCharArray(), new java.security.cert.Certificate[]{certs.server, certs.ca});
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", certs.ca);
        org.eclipse.jetty.util.ssl.SslContextFactory.Server tls = new org.eclipse.jetty.util.ssl.SslContextFactory.Server();
        tls.setKeyStore(keys);
        tls.setKeyStorePassword("pw");
        tls.setTrustStore(trust);
        tls.setWantClientAuth(true);
        org.eclipse.jetty.server.HttpConfiguration config = new org.eclipse.jetty.server.HttpConfiguration();
        org.eclipse.jetty.server.SecureRequestCustomizer secure = new org.eclipse.jetty.server.SecureRequestCustomizer();
        secure.setSniHostCheck(false);
        config.addCustomizer(secure);
        ServerConnector connector = new ServerConnector(server, tls, new org.eclipse.jetty.server.HttpConnectionFactory(config));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        return connector;
    }

    private static void mount(ServletContextHandler context, ApxServlet servlet, String path) {
        ServletHolder holder = new ServletHolder(servlet);
        holder.setAsyncSupported(true);
        context.addServlet(holder, path);
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        jetty.stop();
        echo.close();
        if (fastapi != null) {
            fastapi.close();
        }
        wsgi.close();
    }

    private static HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void pathRootPathQueryHeadersAndClient() throws Exception {
        HttpResponse<String> response = get("/py/a%20b/c?x=1&y=%2F", "X-Status", "203", "X-Thing", "t");
        assertThat(response.statusCode()).isEqualTo(203);
        assertThat(response.headers().allValues("set-cookie")).containsExactly("a=1", "b=2");
        assertThat(response.headers().firstValue("x-one")).hasValue("1");
        assertThat(response.body()).contains("\"path\": \"/ctx/py/a b/c\"", "\"root_path\": \"/ctx/py\"", "\"raw_path\": \"/ctx/py/a%20b/c\"",
                "\"query_string\": \"x=1&y=%2F\"", "[\"x-thing\", \"t\"]", "\"client\": [\"127.0.0.1\", ", "\"server\": [\"127.0.0.1\", ",
                "\"scheme\": \"http\"", "\"http_version\": \"1.1\"", "\"on_loop_thread\": true");
    }

    @Test
    void theContainersTlsIsInTheScope() throws Exception {
        try (HttpClient https = HttpClient.newBuilder().sslContext(certs.clientContext(true)).version(HttpClient.Version.HTTP_1_1).build()) {
            String report = https.send(HttpRequest.newBuilder(URI.create(tlsBase + "/py/secure")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(report).contains("\"scheme\": \"https\"", "\"tls\": true", "\"tls_client_cert_name\": \"O=apx,CN=client one\"",
                    "\"tls_client_chain\": 2", "\"path\": \"/ctx/py/secure\"");
            // Jetty names no protocol in the Servlet attributes (Tomcat's secure_protocol): None, as the ASGI spec allows
            assertThat(report).containsPattern("\"tls_version\": (null|77[12])");
            assertThat(report).containsPattern("\"tls_cipher_suite\": \\d+");
        }
    }

    @Test
    void aWebSocketRequestWithoutTheContainersWebSocketSupportGetsA400ThatSaysSo() throws Exception {
        // this Jetty has no Jakarta WebSocket container (ServletWebSocketTest's has)
        int port = URI.create(base).getPort();
        String response = ServletWebSocketTest.rawHandshake(port, "/ctx/py/chat", "", false, "13");
        assertThat(response).startsWith("HTTP/1.1 400 ");
        assertThat(response).contains("no Jakarta WebSocket support", "JakartaWebSocketServletContainerInitializer", "apx's own server");
        // a WSGI app has no websocket scope: the request reaches it as plain HTTP, as on apx's own server
        String wsgiResponse = ServletWebSocketTest.rawHandshake(port, "/ctx/wsgi/chat", "", false, "13");
        assertThat(wsgiResponse).startsWith("HTTP/1.1 200 ").contains("\"PATH_INFO\": \"/chat\"");
    }

    @Test
    void fastApiRoutesBelowTheMountPoint() throws Exception {
        assertThat(get("/fastapi/items/5?q=a").body()).isEqualTo("{\"item_id\":5,\"q\":\"a\"}");
        HttpResponse<String> created = client.send(HttpRequest.newBuilder(URI.create(base + "/fastapi/items"))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"pen\",\"price\":2.5}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(created.body()).isEqualTo("{\"name\":\"pen\",\"price_with_tax\":3.0,\"tags\":[]}");
        assertThat(get("/fastapi/stream").body()).startsWith("line 0\n").endsWith("line 9\n");
        assertThat(get("/fastapi/file").body()).isEqualTo(Files.readString(Path.of("examples/hello.py")));
        assertThat(get("/java").body()).isEqualTo("from java");
    }

    @Test
    void aTenMebibyteUploadIsReadWithBackpressure() throws Exception {
        byte[] body = new byte[10 * 1024 * 1024];
        long sum = 0;
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31);
            sum += body[i] & 0xff;
        }
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + "/py/upload")).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.body()).contains("\"body_length\": " + body.length, "\"body_sum\": " + sum % 1000003);
        HttpResponse<String> chunked = client.send(HttpRequest.newBuilder(URI.create(base + "/py/upload")).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(chunked.body()).contains("\"body_length\": " + body.length, "\"body_sum\": " + sum % 1000003);
    }

    @Test
    void aLargeStreamedResponseArrivesWhole() throws Exception {
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create(base + "/py/big/160")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        byte[] body = response.body();
        assertThat(body).hasSize(160 * 65536);
        for (int i = 0; i < 160; i++) {
            assertThat(body[i * 65536]).isEqualTo((byte) (i % 251));
        }
    }

    /** The app ends while the container is still writing its last part: the request completes after that write, not during it. */
    @Test
    void anEndWhileTheLastPartIsBeingWrittenLosesNothing() throws Exception {
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create(base + "/py/whole/16")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        byte[] body = response.body();
        assertThat(body).hasSize(16 << 20);
        for (int i = 0; i < body.length; i += 4093) {
            assertThat(body[i]).isEqualTo((byte) i);
        }
    }

    @Test
    void aClientThatDoesNotReadHoldsTheAppBack() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", URI.create(base).getPort())) {
            socket.setReceiveBufferSize(64 * 1024);
            OutputStream out = socket.getOutputStream();
            out.write("GET /ctx/py/big/1000 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
            Thread.sleep(500);
            int sent = Integer.parseInt(echo.call(dev.apx.AppRequest.get("/big-sent")).get(20, TimeUnit.SECONDS).bodyText());
            // 1000 chunks are 64 MiB; what is sent is the app's 64 KiB queue, Jetty's buffer and the sockets'
            assertThat(sent).as("64 KiB chunks sent to a client that reads nothing").isLessThan(300);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (echo.inFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(echo.inFlight()).isZero();
    }

    @Test
    void aClientThatLeavesMidStreamCancelsTheApp() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", URI.create(base).getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /ctx/py/forever HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] some = in.readNBytes(20_000);
            assertThat(new String(some, StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 200").contains("tick");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.readString(log).contains("forever cancelled") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(Files.readString(log)).contains("forever cancelled");
        assertThat(echo.inFlight()).isZero();
    }

    @Test
    void wsgiScriptNameAndPathInfo() throws Exception {
        String report = get("/wsgi/a%20b?k=v", "X-Thing", "t").body(); // (Jetty refuses %2F: "ambiguous path separator")
        assertThat(report).contains("\"SCRIPT_NAME\": \"/ctx/wsgi\"", "\"PATH_INFO\": \"/a b\"", "\"QUERY_STRING\": \"k=v\"",
                "\"HTTP_X_THING\": \"t\"", "\"REMOTE_ADDR\": \"127.0.0.1\"");
    }

    @Test
    void twoHundredConcurrentRequests() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String path = i % 2 == 0 ? "/fastapi/items/" + i : "/py/sleep/0.05?n=" + i;
            responses.add(client.sendAsync(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (int i = 0; i < 200; i++) {
            HttpResponse<String> response = responses.get(i).get(60, TimeUnit.SECONDS);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).contains(i % 2 == 0 ? "\"item_id\":" + i + "," : "\"query_string\": \"n=" + i + "\"");
        }
    }
}
