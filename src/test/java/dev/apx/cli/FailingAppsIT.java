package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Apps that fail in every way (exceptions, SystemExit, invalid messages, a body
 * that breaks its content-length, a send after the response, no response, handlers that never
 * finish, a handler that blocks the loop) beside a healthy route, on the packaged jar
 * ({@code apxtest.failing_apps}). Each failure stays with its own request (500, or the connection closed once the response had started), is logged, and the
 * healthy requests sent meanwhile all succeed; the blocking handler is named in the log while it
 * blocks and service resumes after it; the never-finishing ones are cancelled at shutdown; no
 * handler is left running; exit 0. The healthy route's latency with and without the failing
 * traffic is printed (bench/failing-apps.sh is the measurement).
 */
class FailingAppsIT {
    private static final int HEALTHY_CLIENTS = 2;
    private static final int FAILING_CLIENTS = 4;
    private static final long BASELINE_MILLIS = 700;
    private static final long FAILING_MILLIS = 1500;
    private static final int HEALTHY_TIMEOUT_SECONDS = 10; // a hang, not a speed bound
    private static final int NEVER_AT_SHUTDOWN = 3;
    private static final int BLOCK_MILLIS = 1200;

    @TempDir
    Path tmp;

    /** A failing request and how the client must see it end. */
    private record Failing(String target, Predicate<String> expected, boolean raises) {
    }

    private static final Predicate<String> SERVER_ERROR = r -> r.startsWith("HTTP/1.1 500 Internal Server Error\r\n")
            && r.contains("\r\nconnection: close\r\n") && r.endsWith("\r\n\r\nInternal Server Error");

    private static final List<Failing> FAILING = List.of(
            new Failing("/raise", SERVER_ERROR, true),
            new Failing("/exit", SERVER_ERROR, true),
            new Failing("/invalid/body-first", SERVER_ERROR, true),
            new Failing("/invalid/status-text", SERVER_ERROR, true),
            new Failing("/invalid/header-str", SERVER_ERROR, true),
            new Failing("/invalid/unknown-type", SERVER_ERROR, true),
            new Failing("/invalid/not-a-dict", SERVER_ERROR, true),
            // the head is held back until the first body: nothing went out, the connection just closes
            new Failing("/invalid/start-twice", String::isEmpty, true),
            // started: the connection closes with the chunked body unterminated
            new Failing("/raise-after", r -> r.startsWith("HTTP/1.1 200 OK\r\n") && r.endsWith("\r\n7\r\npartial\r\n"), true),
            // the response stands; the extra send raises in the app
            new Failing("/late-send", r -> r.startsWith("HTTP/1.1 200 OK\r\n") && r.endsWith("\r\n\r\ncomplete"), true),
            // a body that breaks its own content-length: what went out, then the close
            new Failing("/length/longer", cutShort("01234567"), true),
            new Failing("/length/shorter", cutShort("short"), true),
            new Failing("/length/invalid", SERVER_ERROR, true),
            new Failing("/length/conflicting", SERVER_ERROR, true),
            // returns normally, never having responded
            new Failing("/no-response", SERVER_ERROR, false),
            // the client gives up after 50 ms: the server cancels the handler
            // the client gives up once the response has begun (so the handler surely runs): the server cancels it
            new Failing("/stalled", r -> r.startsWith("HTTP/1.1 200 OK\r\n") && r.endsWith("\r\n7\r\nwaiting\r\n"), false));

    /** A 200 whose content-length of 10 the app's body broke: the bytes that went out, then the close. */
    private static Predicate<String> cutShort(String body) {
        return r -> r.startsWith("HTTP/1.1 200 OK\r\n") && r.contains("\r\ncontent-length: 10\r\n") && r.endsWith("\r\n\r\n" + body);
    }

    @Test
    void failingRequestsStayWithTheirOwnRequestsWhileHealthyOnesAreServed() throws Exception {
        Path marker = tmp.resolve("counts.json");
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_FAILING_MARKER", marker.toString()), "--no-access-log",
                "--slow-callback-duration", "0.3", "--timeout-graceful-shutdown", "1", "apxtest.failing_apps:app")) {
            failingBesideHealthy(apx, marker);
        }
    }

    private void failingBesideHealthy(ApxProcess apx, Path marker) throws Exception {
        Healthy healthy = new Healthy(apx.port);
        ExecutorService failingClients = Executors.newFixedThreadPool(FAILING_CLIENTS);
        try {
            healthy.runFor(300); // warm-up (JIT): the baseline below is not a cold start
            List<Long> alone = healthy.runFor(BASELINE_MILLIS);

            AtomicBoolean stop = new AtomicBoolean();
            Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();
            List<Future<?>> failing = new ArrayList<>();
            for (int c = 0; c < FAILING_CLIENTS; c++) {
                int first = c;
                failing.add(failingClients.submit(() -> {
                    for (int i = first; !stop.get() || i < first + FAILING.size(); i++) { // every kind at least once
                        Failing request = FAILING.get(i % FAILING.size());
                        String response = request.target().equals("/stalled") ? abandonAfter(apx.port, request.target(), "waiting\r\n")
                                : exchange(apx.port, request.target(), 10_000);
                        assertThat(request.expected()).as("%s got:%n%s", request.target(), response).accepts(response);
                        sent.computeIfAbsent(request.target(), k -> new AtomicInteger()).incrementAndGet();
                    }
                    return null;
                }));
            }
            List<Long> beside = healthy.runFor(FAILING_MILLIS);
            stop.set(true);
            for (Future<?> client : failing) {
                client.get(30, TimeUnit.SECONDS);
            }
            assertThat(sent.keySet()).as("every kind of failure was sent").hasSize(FAILING.size());
            int desyncChecks = noResponseIsTakenForTheRestOfAnother(apx.port);

            List<Long> duringBlock = blockTheLoop(apx, healthy);

            List<Socket> stuck = new ArrayList<>();
            for (int i = 0; i < NEVER_AT_SHUTDOWN; i++) {
                Socket socket = new Socket("127.0.0.1", apx.port);
                socket.getOutputStream().write(("GET /never/at-shutdown-" + i + " HTTP/1.1\r\nHost: t\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                stuck.add(socket);
            }
            apx.awaitStdout("never at-shutdown-", NEVER_AT_SHUTDOWN, 30);
            assertThat(healthy.runFor(100)).as("served beside the stuck ones").isNotEmpty();
            apx.process.destroy(); // SIGTERM
            assertThat(apx.awaitExit(30)).as(apx.stderr()).isZero();
            for (Socket socket : stuck) {
                assertThat(readAll(socket, 5_000)).as("a response never started: 500 at the cancel, as Uvicorn").matches(SERVER_ERROR);
            }

            checkLogAndCounts(apx, marker, sent, healthy.count.get(), desyncChecks);
            System.out.printf("failing apps: healthy route alone %d requests p50 %.2f ms p99 %.2f ms; beside %d failing clients %d requests "
                            + "p50 %.2f ms p99 %.2f ms; %d failing requests; %d healthy during a %d ms block, max %.0f ms%n",
                    alone.size(), percentile(alone, 50), percentile(alone, 99), FAILING_CLIENTS, beside.size(),
                    percentile(beside, 50), percentile(beside, 99), sent.values().stream().mapToInt(AtomicInteger::get).sum(),
                    duringBlock.size(), BLOCK_MILLIS, percentile(duringBlock, 100));
        } finally {
            failingClients.shutdownNow();
            healthy.close();
        }
    }

    /**
     * A handler that blocks the loop for {@value #BLOCK_MILLIS} ms stalls the requests on the same
     * loop (inherent, as in Uvicorn); it must be named in the log while it blocks, every request
     * must still succeed, and the loop must serve again after it.
     */
    private List<Long> blockTheLoop(ApxProcess apx, Healthy healthy) throws Exception {
        ExecutorService blocker = Executors.newSingleThreadExecutor();
        try {
            Future<String> blocked = blocker.submit(() -> exchange(apx.port, "/block?ms=" + BLOCK_MILLIS, 10_000));
            apx.awaitStderr("\nWARNING:  apx: GET /block?ms=" + BLOCK_MILLIS + " has run for ", 10); // the server's log format
            assertThat(blocked.isDone()).as("named while it still blocks").isFalse();
            List<Long> during = healthy.runFor(200);
            assertThat(blocked.get(10, TimeUnit.SECONDS)).endsWith("\r\n\r\nblocked");
            assertThat(healthy.runFor(100)).as("served again after the block").isNotEmpty();
            assertThat(ApxProcess.count(apx.stderr(), "apx: GET /block?ms=" + BLOCK_MILLIS + " has run for ")).as("named once").isEqualTo(1);
            return during;
        } finally {
            blocker.shutdownNow();
        }
    }

    /**
     * On a keep-alive connection, a body longer or shorter than its content-length must not run
     * into the next response: the connection closes after it, and the request pipelined behind it
     * is never answered. Returns the number of failing requests sent (each raises in the app).
     */
    private static int noResponseIsTakenForTheRestOfAnother(int port) throws IOException {
        for (String kind : List.of("longer", "shorter")) {
            Socket socket = new Socket("127.0.0.1", port);
            socket.getOutputStream().write(("GET /length/" + kind + " HTTP/1.1\r\nHost: t\r\n\r\nGET /healthy/pipelined HTTP/1.1\r\nHost: t\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String response = readAll(socket, 10_000);
            assertThat(response).as(kind).startsWith("HTTP/1.1 200 OK\r\n").endsWith(kind.equals("longer") ? "\r\n\r\n01234567" : "\r\n\r\nshort")
                    .doesNotContain("ok pipelined");
        }
        return 2;
    }

    private static void checkLogAndCounts(ApxProcess apx, Path marker, Map<String, AtomicInteger> sent, int healthy, int desyncChecks)
            throws IOException {
        String stderr = apx.stderr();
        int raised = FAILING.stream().filter(Failing::raises).mapToInt(f -> sent.get(f.target()).get()).sum() + desyncChecks;
        int abandoned = sent.get("/stalled").get();
        int unanswered = sent.get("/no-response").get();
        assertThat(stderr)
                .contains("ValueError: boom before the response").contains("ValueError: boom in the middle of the body")
                .contains("SystemExit: 3")
                .contains("Invalid ASGI message: Expected ASGI message 'http.response.start', but got 'http.response.body'.")
                .contains("Invalid ASGI message: http.response.start 'status' must be an int between 100 and 999")
                .contains("Invalid ASGI message: each header must be a pair of bytes")
                .contains("Invalid ASGI message: ASGI message must be a dict, got str")
                .contains("Invalid ASGI message: Unexpected ASGI message 'http.response.body' sent, after response already completed.")
                .contains("Invalid ASGI message: Response content longer than Content-Length")
                .contains("Invalid ASGI message: Response content shorter than Content-Length")
                .contains("Invalid ASGI message: invalid content-length ten")
                .contains("Invalid ASGI message: conflicting content-length values 10 and 12")
                .contains("ERROR:    Cancel " + NEVER_AT_SHUTDOWN + " running task(s), timeout graceful shutdown exceeded")
                .contains("INFO:     Application shutdown complete.");
        for (int i = 0; i < NEVER_AT_SHUTDOWN; i++) {
            assertThat(stderr).contains("WARNING:  Cancelling GET /never/at-shutdown-" + i + " from 127.0.0.1:");
        }
        assertThat(ApxProcess.count(stderr, "ERROR:    Exception in ASGI application\n"))
                .as("a traceback for each exception and each cancel at shutdown; none for a client that left")
                .isEqualTo(raised + NEVER_AT_SHUTDOWN);
        assertThat(ApxProcess.count(stderr, "ERROR:    ASGI callable returned without starting response.\n")).isEqualTo(unanswered);
        apx.assertNoJavaStackTrace();
        assertThat(Files.readString(marker)).as("every handler ended: completed, raised or cancelled")
                .isEqualTo("{\"started\": %d, \"completed\": %d, \"raised\": %d, \"cancelled\": %d, \"running\": 0}",
                        healthy + 1 + unanswered + raised + abandoned + NEVER_AT_SHUTDOWN, healthy + 1 + unanswered, raised,
                        abandoned + NEVER_AT_SHUTDOWN);
    }

    /** Healthy clients on keep-alive connections; every answer must be 200 {@code ok ID}. */
    private static final class Healthy implements AutoCloseable {
        private final int port;
        private final ExecutorService threads = Executors.newFixedThreadPool(HEALTHY_CLIENTS);
        private final List<HttpClient> clients = new ArrayList<>();
        final AtomicInteger count = new AtomicInteger();

        Healthy(int port) {
            this.port = port;
            for (int i = 0; i < HEALTHY_CLIENTS; i++) {
                clients.add(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
            }
        }

        /** Requests from every client for {@code millis} (at least one each); their latencies in nanoseconds. */
        List<Long> runFor(long millis) throws Exception {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
            List<Future<?>> runs = new ArrayList<>();
            for (HttpClient client : clients) {
                runs.add(threads.submit(() -> {
                    do {
                        String id = "h" + count.incrementAndGet();
                        long start = System.nanoTime();
                        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthy/" + id))
                                .timeout(Duration.ofSeconds(HEALTHY_TIMEOUT_SECONDS)).build(), HttpResponse.BodyHandlers.ofString());
                        latencies.add(System.nanoTime() - start);
                        assertThat(response.statusCode()).as(id).isEqualTo(200);
                        assertThat(response.body()).isEqualTo("ok " + id);
                    } while (System.nanoTime() < end);
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(60, TimeUnit.SECONDS);
            }
            return latencies;
        }

        @Override
        public void close() {
            threads.shutdownNow();
            clients.forEach(HttpClient::close);
        }
    }

    /**
     * One request on a new connection ({@code Connection: close}); every byte until the server
     * closes, server and date lines left out, or "TIMEOUT" (then the client closes).
     */
    private static String exchange(int port, String target, int timeoutMillis) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        return readAll(socket, timeoutMillis);
    }

    /** One request on a new connection; reads until {@code until} arrived (10 s at most), then closes: the client gives up. */
    private static String abandonAfter(int port, String target, String until) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: t\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            while (!out.toString(StandardCharsets.ISO_8859_1).endsWith(until)) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                out.write(b);
            }
            return out.toString(StandardCharsets.ISO_8859_1).replaceAll("(?m)^(server|date): .*\r\n", "");
        } catch (SocketTimeoutException e) {
            return "TIMEOUT";
        }
    }

    private static String readAll(Socket socket, int timeoutMillis) throws IOException {
        try (socket) {
            socket.setSoTimeout(timeoutMillis);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
            }
            return out.toString(StandardCharsets.ISO_8859_1).replaceAll("(?m)^(server|date): .*\r\n", "");
        } catch (SocketTimeoutException e) {
            return "TIMEOUT";
        }
    }

    private static double percentile(List<Long> nanos, int p) {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        return sorted.isEmpty() ? Double.NaN : sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100)) / 1e6;
    }
}
