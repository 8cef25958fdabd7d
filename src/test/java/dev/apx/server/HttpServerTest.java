package dev.apx.server;

import dev.apx.server.api.Response;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * End to end over real sockets: Netty, the ASGI layer and the bridge in this JVM, serving
 * {@code apxtest.http_apps} on 127.0.0.1; real clients (java.net.http and raw sockets).
 * Every fault is followed by a good request on a fresh connection.
 */
class HttpServerTest {
    private static TestServer server;
    private static HttpClient client;

    @BeforeAll
    static void start() {
        server = new TestServer("apxtest.http_apps", "app");
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        server.close();
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(server.uri(path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(server.uri(path)).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The fault left the server healthy: a new connection gets a normal answer. */
    private static void nextRequestSucceeds() {
        String response = RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nok");
    }

    @Test
    void getHasUvicornLikeDefaultHeaders() throws Exception {
        HttpResponse<String> response = post("/echo", "hello");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("hello");
        assertThat(response.headers().firstValue("server")).hasValue("apx");
        assertThat(response.headers().firstValue("date")).get().asString().matches("\\w{3}, \\d{2} \\w{3} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
        assertThat(response.headers().firstValue("content-length")).hasValue("5");
    }

    @Test
    void scopeHasEveryAsgiKey() throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(server.uri("/scope?a=1&b=%20"))
                .header("X-Multi", "one").header("X-Multi", "two").build(), HttpResponse.BodyHandlers.ofString());

        String scope = response.body();
        assertThat(scope)
                .contains("\"type\": \"http\"")
                .contains("\"asgi\": {\"version\": \"3.0\", \"spec_version\": \"2.4\"}")
                .contains("\"http_version\": \"1.1\"")
                .contains("\"method\": \"GET\"")
                .contains("\"scheme\": \"http\"")
                .contains("\"path\": \"/scope\"")
                .contains("\"raw_path\": \"/scope\"")
                .contains("\"query_string\": \"a=1&b=%20\"")
                .contains("\"root_path\": \"\"")
                .contains("[\"x-multi\", \"one\"], [\"x-multi\", \"two\"]")
                .contains("\"client\": [\"127.0.0.1\", ")
                .contains("\"server\": [\"127.0.0.1\", " + server.port() + "]")
                .contains("\"state\": {\"greeting\": \"hello from lifespan\"}")
                .contains("\"http.response.pathsend\": {}")
                .contains("\"raw_path\": \"bytes\"", "\"query_string\": \"bytes\"", "\"headers\": \"list\"", "\"client\": \"tuple\"");
        assertThat(response.headers().allValues("x-dup")).containsExactly("1", "2");
    }

    @Test
    void pathIsPercentDecodedAsUtf8() {
        String response = RawHttp.exchange(server.port(), "GET /scope%2Fnot-here/caf%C3%A9 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 404"); // the decoded path is not a route
        String scope = RawHttp.exchange(server.port(), "GET /scope?x HTTP/1.0\r\n\r\n");
        assertThat(scope).contains("\"http_version\": \"1.0\"").contains("\"query_string\": \"x\"");
    }

    /**
     * UTF-8 sent unescaped is refused (RFC 3986 has a target's non-ASCII percent-encoded; httptools
     * and h11 refuse it too); percent-encoded it is decoded as UTF-8, as the ASGI spec says.
     */
    @Test
    void rawUtf8InThePathIsRefusedAndPercentEncodedUtf8Decoded() {
        String cafe = "caf\u00c3\u00a9"; // the bytes of "café" in UTF-8, one char each (RawHttp sends ISO-8859-1)
        assertThat(RawHttp.exchange(server.port(), "GET /path/" + cafe + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 400 ");
        assertThat(RawHttp.exchange(server.port(), "GET /path/caf%C3%A9/%C3%A9%20x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 200 ").contains("\"path\": \"/path/caf\\u00e9/\\u00e9 x\"");
    }

    @Test
    void chunkedRequestBodyIsStreamedToTheApp() {
        String response = RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nhello world");
    }

    @Test
    void largeBodyIsReceivedWhole() throws Exception {
        String body = "0123456789abcdef".repeat(512 * 1024); // 8 MiB: reading pauses and resumes

        HttpResponse<String> response = post("/echo-length", body);

        assertThat(response.body()).isEqualTo(String.valueOf(body.length()));
    }

    @Test
    void expectContinueGetsA100First() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            byte[] interim = in.readNBytes("HTTP/1.1 100 Continue\r\n\r\n".length());
            assertThat(new String(interim, StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
            socket.getOutputStream().write("data".getBytes(StandardCharsets.ISO_8859_1));
            assertThat(RawHttp.readAll(in)).startsWith("HTTP/1.1 200 OK").endsWith("\r\n\r\ndata");
        }
    }

    @Test
    void chunksReachTheClientWhileTheAppWaits() throws Exception {
        // apx gathers the chunks an app sends in a row into one write: they must still go out when
        // the app stops sending, not wait for its next send or the end of the response
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /trickle HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            StringBuilder seen = new StringBuilder();
            while (!seen.toString().contains("second\n")) {
                int b = in.read();
                assertThat(b).as("the connection ended before the second chunk: %s", seen).isNotNegative();
                seen.append((char) b);
            }
            assertThat(seen.toString()).startsWith("HTTP/1.1 200 OK\r\n").contains("first\n").doesNotContain("late");
        }
    }

    @Test
    void headHasHeadersButNoBody() {
        String response = RawHttp.exchange(server.port(), "HEAD /stream HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n").doesNotContain("chunk");
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() {
        String response = RawHttp.exchange(server.port(),
                "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nfirst"
                        + "GET /stream HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nConnection: close\r\n\r\nthird");

        assertThat(response.split("HTTP/1.1 200 OK")).hasSize(4);
        assertThat(response.indexOf("first")).isLessThan(response.indexOf("chunk0"));
        assertThat(response.indexOf("chunk4")).isLessThan(response.indexOf("third"));
        assertThat(response).endsWith("third");
    }

    @Test
    void streamingResponseIsChunked() throws Exception {
        HttpResponse<String> response = get("/stream");

        assertThat(response.headers().firstValue("transfer-encoding")).hasValue("chunked");
        assertThat(response.body()).isEqualTo("chunk0\nchunk1\nchunk2\nchunk3\nchunk4\n");
    }

    @Test
    void http10ResponseWithoutLengthIsCloseDelimited() {
        String response = RawHttp.exchange(server.port(), "GET /stream HTTP/1.0\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").contains("connection: close\r\n")
                .doesNotContain("transfer-encoding").endsWith("chunk4\n");
    }

    @Test
    void http10KeepAliveIsAnnouncedAndTheConnectionReused() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            java.io.OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            for (String word : List.of("one", "two")) {
                out.write(("POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\n" + word).getBytes(StandardCharsets.ISO_8859_1));
                RawHttp.Response response = RawHttp.read(in, false);
                assertThat(response.body()).isEqualTo(word);
                assertThat(response.header("connection")).isEqualTo("keep-alive");
            }
            out.write("GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            RawHttp.Response unframed = RawHttp.read(in, false); // no length: the close ends the body
            assertThat(unframed.header("connection")).isEqualTo("close");
            assertThat(unframed.body()).endsWith("chunk4\n");
        }
    }

    @Test
    void http10WithoutKeepAliveIsClosed() throws Exception {
        String response = RawHttp.exchange(server.port(), "POST /echo HTTP/1.0\r\nContent-Length: 2\r\n\r\nok");

        assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").contains("connection: close\r\n").endsWith("\r\n\r\nok")
                .doesNotContain("TIMEOUT");
    }

    @Test
    void noContentHasNoBody() throws Exception {
        assertThat(get("/no-content").statusCode()).isEqualTo(204);
    }

    @Test
    void responseTrailersFollowTheChunkedBody() {
        String response = RawHttp.exchange(server.port(), "GET /trailers HTTP/1.1\r\nHost: t\r\nTE: trailers\r\nConnection: close\r\n\r\n");

        assertThat(response).contains("transfer-encoding: chunked").endsWith("4\r\ndata\r\n0\r\nx-checksum: abc\r\n\r\n");
    }

    @Test
    void pathsendServesTheFile() throws Exception {
        HttpResponse<String> response = get("/pathsend");

        assertThat(response.body()).isEqualTo("contents of a file sent with http.response.pathsend\n");
    }

    @Test
    void pendingReceiveGetsDisconnectOnceTheFileIsSent() throws Exception {
        assertThat(get("/pathsend-listen").body()).isEqualTo("contents of a file sent with http.response.pathsend\n");

        String events = "";
        for (int i = 0; i < 1000 && !events.contains("after pathsend: "); i++) {
            Thread.sleep(10);
            events = get("/events").body();
        }
        assertThat(events).contains("after pathsend: http.disconnect");
    }

    @Test
    void malformedRequestGets400AndServerStaysUp() {
        assertThat(RawHttp.exchange(server.port(), "this is not http\r\n\r\n")).startsWith("HTTP/1.1 400 Bad Request\r\n");
        nextRequestSucceeds();
        assertThat(RawHttp.exchange(server.port(), "GET / HTTP/1.1\r\nHost: t\r\nContent-Length: nope\r\n\r\n")).startsWith("HTTP/1.1 400 ");
        nextRequestSucceeds();
    }

    @Test
    void oversizedHeadersGet431() {
        String response = RawHttp.exchange(server.port(), "GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 431 ");
        nextRequestSucceeds();
    }

    @Test
    void exceptionBeforeResponseStartGives500() throws Exception {
        HttpResponse<String> response = get("/raise-before");

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).isEqualTo("Internal Server Error");
        nextRequestSucceeds();
    }

    @Test
    void exceptionAfterResponseStartClosesTheConnection() {
        String response = RawHttp.exchange(server.port(), "GET /raise-after HTTP/1.1\r\nHost: t\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 200 OK").contains("partial").doesNotEndWith("0\r\n\r\n").doesNotContain("TIMEOUT");
        nextRequestSucceeds();
    }

    @Test
    void handlerReturningWithoutResponseGives500() throws Exception {
        assertThat(get("/no-response").statusCode()).isEqualTo(500);
        nextRequestSucceeds();
    }

    /** A handler blocking the loop is named in the log while it blocks; the server carries on. */
    @Test
    void aHandlerBlockingTheLoopIsReported() throws Exception {
        long before = server.bridge.stats().slowDrives();
        var response = get("/block?0.8"); // past the 0.5 s default of --slow-callback-duration
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(server.bridge.stats().slowDrives() - before).isEqualTo(1);
        assertThat(get("/block?0.01").statusCode()).isEqualTo(200);
        assertThat(server.bridge.stats().slowDrives() - before).as("a short block is not reported").isEqualTo(1);
        nextRequestSucceeds();
    }

    @Test
    void invalidMessagesGive500() throws Exception {
        for (String path : List.of("/body-first", "/bad-status", "/bad-headers")) {
            assertThat(get(path).statusCode()).as(path).isEqualTo(500);
            nextRequestSucceeds();
        }
    }

    @Test
    void clientDisconnectIsDeliveredAndCancelsTheRequest() throws Exception {
        for (String path : List.of("/wait-disconnect", "/sleep")) {
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                socket.getOutputStream().flush();
                // closed before the app read its (empty) body, receive() would give http.disconnect
                // there (as Uvicorn's does) and the app would fail instead: wait until it waits
                awaitEvent(path.equals("/sleep") ? "\"sleeping\"" : "\"waiting\"");
            }
        }
        // /events may hold other tests' entries already: wait for this test's own, not for a count
        awaitEvent("\"cancelled\"");
        assertThat(get("/events").body()).contains("\"http.disconnect\"").contains("\"cancelled\"");
    }

    /** Polls /events until it lists {@code entry} (a quoted JSON string), for up to 5 s. */
    private static void awaitEvent(String entry) throws Exception {
        for (int i = 0; i < 500 && !get("/events").body().contains(entry); i++) {
            Thread.sleep(10);
        }
    }

    /**
     * 100 MiB streamed to a client that stops reading for 3 s after the first bytes, then reads:
     * every byte arrives and, because send() waits while the socket is not writable, the heap
     * (sampled after a GC during the stall and every 8 MiB) never grows by more than
     * {@link #HEAP_BOUND} (heap plus Netty's direct buffers) over its level before the request. Without that wait the app would queue
     * tens of MiB in the stall.
     */
    @Test
    void largeStreamingResponseToASlowClientKeepsTheHeapBounded() throws Exception {
        long size = 100L * 1024 * 1024;
        long baseline = usedHeapAfterGc();
        long peak;
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setReceiveBufferSize(64 * 1024);
            socket.getOutputStream().write(("GET /big?" + size + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[64 * 1024];
            long total = in.read(buffer);
            Thread.sleep(3000); // the slow client: the server's socket buffer fills up
            peak = usedHeapAfterGc() - baseline;
            long nextSample = 0;
            for (int n; (n = in.read(buffer)) >= 0; ) {
                total += n;
                if (total >= nextSample) {
                    nextSample += 8L * 1024 * 1024;
                    peak = Math.max(peak, usedHeapAfterGc() - baseline);
                }
            }
            assertThat(total).isGreaterThan(size);
        }
        assertThat(peak).as("heap growth while streaming 100 MiB").isLessThan(HEAP_BOUND);
        nextRequestSucceeds();
    }

    private static final long HEAP_BOUND = 16L * 1024 * 1024;

    /** Heap in use after a GC, plus the direct memory of Netty's allocator (where queued writes end up). */
    private static long usedHeapAfterGc() {
        System.gc();
        Runtime runtime = Runtime.getRuntime();
        long direct = io.netty.buffer.ByteBufAllocator.DEFAULT instanceof io.netty.buffer.ByteBufAllocatorMetricProvider metrics
                ? metrics.metric().usedDirectMemory() : 0;
        return runtime.totalMemory() - runtime.freeMemory() + direct;
    }
}
