package dev.apx.wsgi;

import dev.apx.app.AppConfig;
import dev.apx.app.TrustedHosts;
import dev.apx.python.PyRef;
import dev.apx.server.RawHttp;
import dev.apx.server.api.Response;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * WSGI behaviour a user sees that a differential run cannot show: the response iterable's close()
 * on a client that leaves, bounded memory for a client that reads slowly or an app that reads its
 * upload slowly, wsgi.file_wrapper without a read through Python, and the environ under
 * --root-path and --proxy-headers. Plain PEP 3333 apps ({@code apxtest.wsgi_apps}), every Python.
 */
class WsgiTest {
    private static final long CHUNK = 65536; // /tracked's chunk size
    private static WsgiTestServer server;

    @BeforeAll
    static void start() {
        server = new WsgiTestServer("apxtest.wsgi_apps", "app");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        server.close();
    }

    private static Socket get(int port, String target) throws Exception {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(30_000);
        socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: t\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        return socket;
    }

    /** {@code wsgi_apps.wait_closed(tag)}: chunks yielded before close(), or null (its Condition.wait releases the GIL). */
    private static Long waitClosed(String tag, double seconds) {
        return (Long) server.python.call(gil -> {
            try (PyRef module = gil.importModule("apxtest.wsgi_apps")) {
                try (PyRef closed = module.callMethod(gil, "wait_closed", tag, seconds)) {
                    return closed.toJava(gil);
                }
            }
        });
    }

    private static long produced(String tag) {
        return server.python.call(gil -> {
            try (PyRef module = gil.importModule("apxtest.wsgi_apps"); PyRef produced = module.getAttr(gil, "produced");
                 PyRef count = produced.callMethod(gil, "get", tag, 0L)) {
                return (Long) count.toJava(gil);
            }
        });
    }

    @Test
    void closeIsCalledWhenTheClientLeavesAnEndlessResponse() throws Exception {
        try (Socket socket = get(server.port(), "/tracked?gone")) {
            InputStream in = socket.getInputStream();
            in.readNBytes(200_000); // the response is flowing
        } // the client leaves in the middle
        Long yielded = waitClosed("gone", 10);
        assertThat(yielded).as("close() of the endless iterable ran").isNotNull().isGreaterThan(0);
    }

    @Test
    void aSlowReaderHoldsBoundedMemory() throws Exception {
        try (Socket socket = get(server.port(), "/tracked?slow")) {
            InputStream in = socket.getInputStream();
            in.readNBytes(1000);
            Thread.sleep(1000); // the client reads nothing: the app must stop producing, not buffer
            long stalled = produced("slow");
            Thread.sleep(500);
            assertThat(produced("slow")).as("the endless app waits for the client").isEqualTo(stalled);
            // socket buffers (a few MiB on loopback) + Netty's high-water mark + the chunk in hand
            assertThat(stalled * CHUNK).isLessThan(32L << 20);
            in.readNBytes((int) (4 * CHUNK)); // reading resumes it
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (produced("slow") == stalled && System.nanoTime() < deadline) {
                in.readNBytes((int) CHUNK);
            }
            assertThat(produced("slow")).isGreaterThan(stalled);
        }
        assertThat(waitClosed("slow", 10)).isNotNull();
    }

    @Test
    void anUploadTheAppDoesNotReadYetIsNotBufferedWhole() throws Exception {
        long total = 256L << 20; // more than any socket buffers can hold
        AtomicLong sent = new AtomicLong();
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /sleep?2 HTTP/1.1\r\nHost: t\r\nContent-Length: " + total + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            Thread writer = Thread.ofPlatform().start(() -> {
                byte[] block = new byte[65536];
                try {
                    while (sent.get() < total) {
                        out.write(block);
                        sent.addAndGet(block.length);
                    }
                } catch (java.io.IOException closed) {
                    // the test ends the connection
                }
            });
            Thread.sleep(1200); // the app sleeps before it reads anything
            assertThat(sent.get()).as("the server stopped reading: the client's writes block").isLessThan(64L << 20);
            socket.close();
            writer.join(5000);
        }
    }

    @Test
    void appsThatWaitRunSideBySideOnTheBlockingThreads() throws Exception {
        // 8 requests that sleep 1 s on the default 10 threads: about 1 s, not 8 (a thread that runs
        // queued requests in a row while it holds the GIL must not hold back one that waits)
        long began = System.nanoTime();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                answers.add(clients.submit(() -> RawHttp.exchange(server.port(), "GET /sleep?1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")));
            }
            for (Future<String> answer : answers) {
                assertThat(answer.get()).endsWith("slept");
            }
        }
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(4));
    }

    @Test
    void aFileWrapperOverARealFileIsSentWithoutReadingItThroughPython() throws Exception {
        String expected = Files.readString(Path.of("target/test-classes/python/apxtest/pathsend.txt"));
        RawHttp.Response response;
        try (Socket socket = get(server.port(), "/file-zero-copy")) {
            response = RawHttp.read(socket.getInputStream(), false);
        }
        assertThat(response.statusLine()).isEqualTo("HTTP/1.1 200 OK");
        assertThat(response.body()).isEqualTo(expected);
    }

    @Test
    void environHonoursRootPathAndTrustedProxyHeaders() throws Exception {
        WsgiConfig mounted = new WsgiConfig(new AppConfig("/mount", true, TrustedHosts.parse("127.0.0.1")), 2, 0, false);
        try (WsgiTestServer proxied = new WsgiTestServer("apxtest.wsgi_apps", "app", mounted,
                ServerConfig.defaults().withAccessLog(false), List.of())) {
            String answer = RawHttp.exchange(proxied.port(), "GET /environ HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: 203.0.113.9\r\n"
                    + "X-Forwarded-Proto: https\r\nConnection: close\r\n\r\n");
            assertThat(answer).contains("\"SCRIPT_NAME\": \"/mount\"", "\"PATH_INFO\": \"/environ\"",
                    "\"REMOTE_ADDR\": \"203.0.113.9\"", "\"wsgi.url_scheme\": \"https\"");
        }
        WsgiConfig untrusting = new WsgiConfig(new AppConfig("", false, TrustedHosts.parse("127.0.0.1")), 2, 0, false);
        try (WsgiTestServer direct = new WsgiTestServer("apxtest.wsgi_apps", "app", untrusting,
                ServerConfig.defaults().withAccessLog(false), List.of())) {
            String answer = RawHttp.exchange(direct.port(), "GET /environ HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: 203.0.113.9\r\n"
                    + "X-Forwarded-Proto: https\r\nConnection: close\r\n\r\n");
            assertThat(answer).contains("\"SCRIPT_NAME\": \"\"", "\"REMOTE_ADDR\": \"127.0.0.1\"", "\"wsgi.url_scheme\": \"http\"");
        }
    }
}
