package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
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
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * SIGTERM to the packaged jar while many requests are in flight (the app is
 * {@code apxtest.shutdown_apps}). Requests that can finish within {@code --timeout-graceful-shutdown}
 * (slow ones that start their response after the signal, streams half sent before it, uploads
 * half received before it) finish with every byte; the listening socket refuses new connections at once and idle keep-alive
 * connections are closed while the others drain; the ones that cannot finish are cancelled
 * (CancelledError in the app; the log names each and has its traceback); lifespan shutdown runs after the last request ended; exit 0.
 *
 * <p>{@value #DEFAULT_IN_FLIGHT} requests in flight in the normal run; {@code -Dapx.shutdown.inflight=500}
 * (bench/shutdown-load.sh) is the full-size run. It prints its timings as one line.
 */
class ShutdownUnderLoadIT {
    private static final int DEFAULT_IN_FLIGHT = 150;
    private static final int GRACE_SECONDS = 4; // well past the slowest finishable request (~1.2 s after the gate), for a loaded machine
    private static final int IDLE_CONNECTIONS = 4;

    @TempDir
    Path tmp;

    /** One request of the load, what it should get, and what it got. */
    private record Call(String kind, String id, String target, int expectedLength, CompletableFuture<Outcome> outcome) {
        boolean canFinish() {
            return !kind.equals("stuck");
        }
    }

    /** A response as the client got it: status, its {@code connection} header (or null) and body; or the error. */
    private record Outcome(int status, String connection, byte[] body, Throwable error, long doneNanos) {
        static Outcome of(HttpResponse<byte[]> response, Throwable error) {
            return response == null ? new Outcome(0, null, null, error, System.nanoTime())
                    : new Outcome(response.statusCode(), response.headers().firstValue("connection").orElse(null), response.body(),
                    error, System.nanoTime());
        }
    }

    @Test
    void sigtermFinishesWhatCanFinishRefusesNewConnectionsAndCancelsTheRest() throws Exception {
        int inFlight = Integer.getInteger("apx.shutdown.inflight", DEFAULT_IN_FLIGHT);
        Path marker = tmp.resolve("lifespan-shutdown.json");
        Path gate = tmp.resolve("gate");
        try (ApxProcess apx = ApxProcess.start(tmp, Map.of("APX_SHUTDOWN_MARKER", marker.toString(), "APX_SHUTDOWN_GATE", gate.toString()),
                "--no-access-log", "--timeout-graceful-shutdown", String.valueOf(GRACE_SECONDS), "apxtest.shutdown_apps:app")) {
            shutDownUnderLoad(apx, inFlight, marker, gate);
        }
    }

    private void shutDownUnderLoad(ApxProcess apx, int inFlight, Path marker, Path gate) throws Exception {
        int port = apx.port;

        List<Socket> idle = openIdleKeepAliveConnections(port);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        CountDownLatch gateOpened = new CountDownLatch(1);
        List<Call> calls = load(inFlight, port, client, gateOpened);
        apx.awaitStdout("started ", inFlight + IDLE_CONNECTIONS, 60);

        long sigterm = System.nanoTime();
        apx.process.destroy(); // SIGTERM
        apx.awaitStderr("INFO:     Shutting down", 10);
        long refusedAt = awaitRefused(port);
        for (Socket socket : idle) {
            assertThat(readToEnd(socket)).as("an idle keep-alive connection is closed by the server at once").isEqualTo(-1);
        }
        long idleClosedAt = System.nanoTime();
        assertThat(calls.stream().filter(Call::canFinish).noneMatch(call -> call.outcome().isDone()))
                .as("the finishable requests were still in flight while new connections were refused").isTrue();
        Files.createFile(gate);
        gateOpened.countDown();
        int refusedWhileDraining = 0;
        while (calls.stream().filter(Call::canFinish).anyMatch(call -> !call.outcome().isDone())) {
            assertThat(connects(port)).as("a new connection while draining").isFalse();
            refusedWhileDraining++;
            Thread.sleep(100);
        }
        long lastFinished = calls.stream().filter(Call::canFinish).mapToLong(call -> call.outcome().join().doneNanos()).max().orElseThrow();
        int exitCode = apx.awaitExit(60);
        long exited = System.nanoTime();
        String stdout = apx.stdout();
        String stderr = apx.stderr();

        assertThat(exitCode).as(stderr).isZero();
        for (Call call : calls) {
            checkOutcome(call, stdout, stderr);
        }
        long stuck = calls.stream().filter(call -> !call.canFinish()).count();
        assertThat(stderr)
                .contains("ERROR:    Cancel " + stuck + " running task(s), timeout graceful shutdown exceeded")
                .contains("INFO:     Waiting for application shutdown.")
                .contains("INFO:     Application shutdown complete.")
                .contains("INFO:     Finished server process [");
        apx.assertNoJavaStackTrace();
        assertThat(ApxProcess.count(stderr, "ERROR:    Exception in ASGI application\n")).as("one traceback per cancelled request").isEqualTo(stuck);
        assertThat(ApxProcess.count(stderr, "CancelledError")).as("the tracebacks are the cancels").isGreaterThanOrEqualTo(stuck);
        long finishable = calls.size() - stuck + IDLE_CONNECTIONS;
        assertThat(Files.readString(marker)).as("lifespan shutdown ran after every request ended")
                .isEqualTo("{\"started\": %d, \"completed\": %d, \"cancelled\": %d, \"failed\": 0, \"running\": 0}",
                        calls.size() + IDLE_CONNECTIONS, finishable, stuck);

        System.out.printf("shutdown under load: %d in flight (%d slow, %d streaming, %d uploads, %d stuck); after SIGTERM: refused at %d ms, "
                        + "idle keep-alive closed by %d ms, last finishable response %d ms, exit %d ms (graceful timeout %d s); "
                        + "%d refused connects while draining%n",
                calls.size(), calls.stream().filter(c -> c.kind().equals("slow")).count(),
                calls.stream().filter(c -> c.kind().equals("stream")).count(), calls.stream().filter(c -> c.kind().equals("upload")).count(), stuck,
                millis(refusedAt - sigterm), millis(idleClosedAt - sigterm), millis(lastFinished - sigterm), millis(exited - sigterm),
                GRACE_SECONDS, refusedWhileDraining);
    }

    /**
     * The load, in a fixed mix of ten: 3 slow (0.1-1 s after the gate; 1-16 KiB bodies, every ninth
     * 256 KiB), 3 streaming (10 chunks of 2 KiB, half before the gate, 50-125 ms apart after), 2
     * uploads (64 KiB, every tenth 512 KiB: half sent before the gate, the rest after; echoed back),
     * 2 stuck (one with its response started).
     */
    private static List<Call> load(int count, int port, HttpClient client, CountDownLatch gate) {
        List<Call> calls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = "r" + i;
            Call call = switch (i % 10) {
                case 0, 1, 2 -> {
                    int size = i % 30 == 0 ? 256 * 1024 : 1024 + 997 * (i % 16);
                    yield send(client, port, "slow", id, "ms=" + (100 + 100 * (i / 10 % 10)) + "&size=" + size, size);
                }
                case 3, 4, 5 -> send(client, port, "stream", id, "chunks=10&size=2048&ms=" + (50 + 25 * (i % 4)), 10 * 2048);
                case 6, 7 -> upload(port, id, i % 50 == 6 ? 512 * 1024 : 64 * 1024, gate);
                default -> send(client, port, "stuck", id, "started=" + (i % 10 - 8), -1);
            };
            calls.add(call);
        }
        return calls;
    }

    /** A raw-socket upload: the head and half the body now, the rest once the gate opens; reads the echo and the close. */
    private static Call upload(int port, String id, int size, CountDownLatch gate) {
        String target = "/upload/" + id;
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.setSoTimeout(60_000);
                byte[] body = bodyOf(id, size);
                OutputStream out = socket.getOutputStream();
                out.write(("POST " + target + " HTTP/1.1\r\nHost: t\r\nContent-Length: " + size + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body, 0, size / 2);
                out.flush();
                gate.await();
                out.write(body, size / 2, size - size / 2);
                out.flush();
                outcome.complete(readResponse(socket.getInputStream()));
            } catch (Throwable e) {
                outcome.complete(new Outcome(0, null, null, e, System.nanoTime()));
            }
        });
        return new Call("upload", id, target, size, outcome);
    }

    /** One content-length framed response, then the server's close (anything else is an error). */
    private static Outcome readResponse(InputStream in) throws IOException {
        String statusLine = readLine(in);
        String connection = null;
        int length = -1;
        for (String line; !(line = readLine(in)).isEmpty(); ) {
            String[] header = line.split(":\\s*", 2);
            switch (header[0].toLowerCase(Locale.ROOT)) {
                case "connection" -> connection = header[1];
                case "content-length" -> length = Integer.parseInt(header[1]);
                default -> { }
            }
        }
        byte[] body = in.readNBytes(Math.max(length, 0));
        if (in.read() != -1) {
            throw new IOException("the connection stayed open after " + statusLine);
        }
        return new Outcome(Integer.parseInt(statusLine.split(" ")[1]), connection, body, null, System.nanoTime());
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) {
                throw new IOException("closed in the head, after: " + line);
            }
            line.append((char) b);
        }
        return line.toString().stripTrailing();
    }

    private static Call send(HttpClient client, int port, String kind, String id, String query, int expectedLength) {
        String target = "/" + kind + "/" + id + "?" + query;
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + target)).timeout(Duration.ofSeconds(60)).build();
        CompletableFuture<Outcome> outcome = client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                .handle(Outcome::of);
        return new Call(kind, id, target, expectedLength, outcome);
    }

    private static void checkOutcome(Call call, String stdout, String stderr) {
        Outcome outcome = call.outcome().join();
        boolean cancelled = stdout.contains("cancelled " + call.id() + "\n");
        boolean named = stderr.contains("WARNING:  Cancelling GET " + call.target() + " from 127.0.0.1:");
        if (call.canFinish()) {
            assertThat(outcome.error()).as("%s failed", call.target()).isNull();
            assertThat(outcome.status()).as(call.target()).isEqualTo(200);
            assertThat(outcome.body()).as("every byte of %s", call.target()).isEqualTo(bodyOf(call.id(), call.expectedLength()));
            assertThat(cancelled || named).as("%s was cancelled", call.target()).isFalse();
            if (!call.kind().equals("stream")) {
                assertThat(outcome.connection()).as("%s started during the shutdown", call.target()).isEqualTo("close");
            }
        } else {
            assertThat(cancelled).as("%s got CancelledError", call.target()).isTrue();
            assertThat(named).as("the log names the cancelled %s", call.target()).isTrue();
            if (call.target().endsWith("started=0")) {
                assertThat(outcome.error()).as(call.target()).isNull();
                assertThat(outcome.status()).as("as Uvicorn: a response never started becomes a 500").isEqualTo(500);
            } else {
                assertThat(outcome.error()).as("%s: a started response cut short is not a complete one", call.target()).isNotNull();
            }
        }
    }

    /** {@code ID:} repeated and cut at {@code length} bytes, as {@code shutdown_apps.body_of}. */
    private static byte[] bodyOf(String id, int length) {
        byte[] unit = (id + ":").getBytes(StandardCharsets.US_ASCII);
        byte[] body = new byte[length];
        for (int i = 0; i < length; i++) {
            body[i] = unit[i % unit.length];
        }
        return body;
    }

    /** Connections that got one quick response and stay open (keep-alive), idle. */
    private List<Socket> openIdleKeepAliveConnections(int port) throws IOException {
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < IDLE_CONNECTIONS; i++) {
            Socket socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(("GET /quick/idle" + i + "?size=10 HTTP/1.1\r\nHost: t\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String expected = "\r\n\r\n" + new String(bodyOf("idle" + i, 10), StandardCharsets.US_ASCII);
            StringBuilder received = new StringBuilder();
            InputStream in = socket.getInputStream();
            while (!received.toString().endsWith(expected)) {
                int b = in.read();
                assertThat(b).as("the quick response, so far: %s", received).isNotNegative();
                received.append((char) b);
            }
            assertThat(received.toString()).startsWith("HTTP/1.1 200 OK\r\n").doesNotContain("connection: close");
            sockets.add(socket);
        }
        return sockets;
    }

    /** Reads until the server closes: -1, or fails if bytes come or 5 s pass. */
    private static int readToEnd(Socket socket) throws IOException {
        try (socket) {
            return socket.getInputStream().read();
        }
    }

    /** Polls until a connect is refused (the listener closes just after the "Shutting down" line); returns when. */
    private static long awaitRefused(int port) throws Exception {
        for (int i = 0; i < 100; i++) {
            if (!connects(port)) {
                return System.nanoTime();
            }
            Thread.sleep(10);
        }
        return fail("new connections were still accepted 1 s after \"Shutting down\"");
    }

    private static boolean connects(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (ConnectException refused) {
            return false;
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
