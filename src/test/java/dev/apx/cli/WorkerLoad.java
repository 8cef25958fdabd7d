package dev.apx.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Steady load on {@code GET /pid} (or {@code /who}: "PID RUNTIME") of {@code apxtest.worker_apps} while a test signals the supervisor:
 * half the clients open a connection per request, half keep theirs alive (the JDK client, which
 * resends an idempotent request once when a pooled connection turns out closed, as browsers do).
 * Counts answers per worker pid (the answer's first word) and per answer, and every failure.
 */
final class WorkerLoad implements AutoCloseable {
    final Map<Long, AtomicLong> perPid = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> perAnswer = new ConcurrentHashMap<>();
    final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    final AtomicLong ok = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private volatile boolean running = true;

    WorkerLoad(int port, int clients) {
        this(port, clients, "/pid");
    }

    WorkerLoad(int port, int clients, String path) {
        for (int i = 0; i < clients; i++) {
            boolean keepAlive = i % 2 == 1;
            threads.add(Thread.ofPlatform().daemon().start(() -> {
                while (running) {
                    try {
                        String body = keepAlive ? keepAliveGet(port, path) : get(port, path);
                        perPid.computeIfAbsent(Long.parseLong(body.split(" ")[0]), pid -> new AtomicLong()).incrementAndGet();
                        perAnswer.computeIfAbsent(body, b -> new AtomicLong()).incrementAndGet();
                        ok.incrementAndGet();
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }
            }));
        }
    }

    Set<Long> pids() {
        return perPid.keySet();
    }

    /** Waits until {@code more} further requests succeeded (the load is really running). */
    void awaitMore(long more, int seconds) throws InterruptedException {
        long target = ok.get() + more;
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (ok.get() < target && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    private String keepAliveGet(int port, String path) throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("status " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    /** One request on a new connection ({@code connection: close}); the body, or an exception for anything but a 200. */
    static String get(int port, String path) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.setSoTimeout(60_000); // a loaded CI machine can stall for many seconds: a slow answer is not a failed one
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            if (!response.startsWith("HTTP/1.1 200 ")) {
                throw new IOException("unexpected response: " + (response.isEmpty() ? "(connection closed)" : response.lines().findFirst().orElse("")));
            }
            return response.substring(response.indexOf("\r\n\r\n") + 4);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join(30_000);
        }
    }
}
