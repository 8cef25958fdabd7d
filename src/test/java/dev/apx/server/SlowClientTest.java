package dev.apx.server;

import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slow and idle clients against apx serving {@code apxtest.hostile_apps}, with short timeouts
 * (header read 1-2 s, write 1 s; keep-alive stays at its 5 s default so it cannot be what acts):
 * the header read timeout closes a connection whose head trickles in, but not one whose app or
 * body is slow; the write timeout closes a connection whose client stopped reading, but not a
 * slow reader; 1,000 slowloris connections do not keep other clients from being served. The body
 * timeout (1-2 s) likewise closes a connection whose body stalls, with a 408, but not a slow body, nor
 * one the app has not asked for yet; 1,000 stalled bodies keep no one out. In the 3.11 fork only ({@link OnceOnly}).
 */
class SlowClientTest {
    @org.junit.jupiter.api.BeforeAll
    static void once() {
        OnceOnly.inThe311Fork();
    }

    private static ServerConfig config(int headerSeconds, int writeSeconds) {
        ServerConfig d = ServerConfig.defaults().withAccessLog(false);
        return d.withLimits(d.limits().withTimeouts(headerSeconds, writeSeconds));
    }

    @Test
    void aHeadThatTricklesInIsCutOffByTheHeaderTimeout() throws Exception {
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", config(1, 60));
             Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(200);
            OutputStream out = socket.getOutputStream();
            out.write("GET /slowloris HTTP/1.1\r\nHost: t\r\nX-Slow: ".getBytes(StandardCharsets.ISO_8859_1));
            long start = System.nanoTime();
            boolean closed = false;
            while (!closed && System.nanoTime() - start < 4_500_000_000L) { // one byte per 200 ms keeps keep-alive (5 s) from firing
                try {
                    out.write('a');
                    closed = socket.getInputStream().read() < 0;
                } catch (SocketTimeoutException e) {
                    // still open
                } catch (SocketException e) {
                    closed = true;
                }
            }
            assertThat(closed).as("closed by the 1 s header timeout within 4.5 s").isTrue();
            assertThat(AppState.seen(server.port())).doesNotContain("/slowloris");
        }
    }

    @Test
    void theHeaderTimeoutDoesNotCutASlowAppOrASlowBody() throws Exception {
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", config(1, 60))) {
            assertThat(RawHttp.exchange(server.port(), "GET /sleep?2 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"))
                    .startsWith("HTTP/1.1 200 ").endsWith("slept");
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                out.write("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                for (int i = 0; i < 3; i++) {
                    Thread.sleep(700);
                    out.write('b');
                    out.flush();
                }
                assertThat(RawHttp.readAll(socket.getInputStream())).startsWith("HTTP/1.1 200 ").endsWith("3 bytes");
            }
        }
    }

    private static ServerConfig bodyTimeout(int seconds) {
        ServerConfig d = ServerConfig.defaults().withAccessLog(false);
        return d.withLimits(d.limits().withBodyTimeout(seconds));
    }

    /** A body that stops short of its Content-Length, and a chunked one stalled in its trailers: 408, then the close. */
    @Test
    void aBodyThatStallsIsCutOffByTheBodyTimeout() throws Exception {
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", bodyTimeout(1))) {
            String before = AppState.stats(server.port());
            for (String request : List.of("POST /stalled-length HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nhello",
                    "POST /stalled-trailers HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r#")) {
                long start = System.nanoTime();
                String response = RawHttp.exchange(server.port(), request);
                assertThat(response).as(request).startsWith("HTTP/1.1 408 ").contains("connection: close\r\n").doesNotContain("TIMEOUT");
                assertThat((System.nanoTime() - start) / 1_000_000).as("ms until the 408").isBetween(900L, 5000L);
            }
            AppState.awaitIdle(server.port());
            assertThat(AppState.count(AppState.stats(server.port()), "disconnect")).as("the apps saw the client go")
                    .isEqualTo(AppState.count(before, "disconnect") + 2);
        }
    }

    /** A byte every 0.6 s with a 1 s body timeout; and a 100 Continue the app asks for only after 2 s (the client waits for it meanwhile). */
    @Test
    void theBodyTimeoutDoesNotCutASlowBodyOrAnAppThatAsksLate() throws Exception {
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", bodyTimeout(1))) {
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                out.write("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                for (int i = 0; i < 4; i++) {
                    Thread.sleep(600);
                    out.write('b');
                    out.flush();
                }
                assertThat(RawHttp.readAll(socket.getInputStream())).startsWith("HTTP/1.1 200 ").endsWith("4 bytes");
            }
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(("POST /later?2 HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n"
                        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                InputStream in = socket.getInputStream();
                assertThat(new String(in.readNBytes(25), StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
                socket.getOutputStream().write("ok".getBytes(StandardCharsets.ISO_8859_1));
                assertThat(RawHttp.readAll(in)).startsWith("HTTP/1.1 200 ").endsWith("2 bytes");
            }
        }
    }

    /** The slowloris twin for bodies: 1,000 connections whose bodies stall keep no one else out, and the body timeout closes them all. */
    @Test
    void aThousandStalledBodiesDoNotStopOtherClients() throws Exception {
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", bodyTimeout(2))) {
            List<Socket> slow = new ArrayList<>();
            try {
                for (int i = 0; i < 1000; i++) {
                    Socket socket = new Socket("127.0.0.1", server.port());
                    socket.getOutputStream().write("POST /stalled HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nhello"
                            .getBytes(StandardCharsets.ISO_8859_1));
                    slow.add(socket);
                }
                for (int i = 0; i < 50; i++) {
                    assertThat(RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
                            .as("request %d while 1,000 bodies stall", i).startsWith("HTTP/1.1 200 ").endsWith("2 bytes");
                }
                int timedOut = 0;
                long deadline = System.nanoTime() + 30_000_000_000L; // all of them within 30 s
                for (Socket socket : slow) {
                    socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                    timedOut += RawHttp.readAll(socket.getInputStream()).startsWith("HTTP/1.1 408 ") ? 1 : 0;
                }
                assertThat(timedOut).as("stalled bodies answered 408 and closed by the body timeout").isEqualTo(1000);
            } finally {
                for (Socket socket : slow) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void aClientThatStopsReadingIsCutOffByTheWriteTimeout() throws Exception {
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", config(60, 1))) {
            long size = 100L * 1024 * 1024;
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.setReceiveBufferSize(64 * 1024);
                socket.getOutputStream().write(("GET /big?" + size + " HTTP/1.1\r\nHost: t\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                Thread.sleep(3000); // the client reads nothing for three times the write timeout
                socket.setSoTimeout(10_000);
                long total = drain(socket.getInputStream());
                assertThat(total).as("bytes the client got before the server closed").isLessThan(size);
            }
            assertThat(RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
                    .startsWith("HTTP/1.1 200 ");
        }
    }

    @Test
    void aSlowReaderIsNotCutOffByTheWriteTimeout() throws Exception {
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", config(60, 1))) {
            int size = 1024 * 1024;
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.setReceiveBufferSize(64 * 1024);
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(("GET /big?" + size + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                InputStream in = socket.getInputStream();
                byte[] buffer = new byte[128 * 1024];
                long total = 0;
                for (int n; (n = in.readNBytes(buffer, 0, buffer.length)) > 0; ) {
                    total += n;
                    Thread.sleep(500); // half the write timeout, eight times over
                }
                assertThat(total).as("every byte arrived").isGreaterThan(size);
            }
        }
    }

    @Test
    void aThousandSlowlorisConnectionsDoNotStopOtherClients() throws Exception {
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app", config(2, 60))) {
            List<Socket> slow = new ArrayList<>();
            try {
                for (int i = 0; i < 1000; i++) {
                    Socket socket = new Socket("127.0.0.1", server.port());
                    socket.getOutputStream().write("GET /slowloris HTTP/1.1\r\nHost: t\r\nX-Slow: ".getBytes(StandardCharsets.ISO_8859_1));
                    slow.add(socket);
                }
                for (int i = 0; i < 50; i++) {
                    assertThat(RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
                            .as("request %d while 1,000 heads are pending", i).startsWith("HTTP/1.1 200 ").endsWith("2 bytes");
                }
                int closed = 0;
                for (Socket socket : slow) {
                    socket.setSoTimeout(10_000);
                    try {
                        closed += socket.getInputStream().read() < 0 ? 1 : 0;
                    } catch (SocketException e) {
                        closed++;
                    }
                }
                assertThat(closed).as("slowloris connections closed by the header timeout").isEqualTo(1000);
                assertThat(AppState.seen(server.port())).doesNotContain("/slowloris");
            } finally {
                for (Socket socket : slow) {
                    socket.close();
                }
            }
        }
    }

    private static long drain(InputStream in) throws IOException {
        long total = 0;
        byte[] buffer = new byte[64 * 1024];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                total += n;
            }
        } catch (SocketException e) {
            // reset: the server closed with data still queued
        }
        return total;
    }
}
