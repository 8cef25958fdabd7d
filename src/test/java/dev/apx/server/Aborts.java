package dev.apx.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Clients of {@code apxtest.hostile_apps} that abort at random points: in the middle of the request
 * body, of a 1 MiB response, or of an endless stream; half of them with a reset (SO_LINGER 0), half
 * with a FIN. Shared by DisconnectTest (a server in the test JVM) and DisconnectIT (apx in a process
 * of its own, as users run it).
 */
public final class Aborts {
    public enum Cut { MID_BODY, MID_RESPONSE, MID_STREAM }

    private final long seed = System.nanoTime();
    private final AtomicLongArray cuts = new AtomicLongArray(Cut.values().length);

    /** Cases {@code from} to {@code to} on 8 client threads, then waits until no handler runs. */
    public void run(int port, int from, int to) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = from; i < to; i++) {
                int index = i;
                done.add(clients.submit(() -> {
                    abortOne(port, new SplittableRandom(seed * 31 + index));
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            clients.shutdown();
        }
        AppState.awaitIdle(port);
    }

    /** {@code cases} cases in four quarters, {@code snapshot} taken after each (the first: the baseline after the warm-up). */
    public <T> List<T> runInQuarters(int port, int cases, Callable<T> snapshot) throws Exception {
        List<T> quarters = new ArrayList<>();
        for (int q = 0; q < 4; q++) {
            run(port, q * cases / 4, (q + 1) * cases / 4);
            quarters.add(snapshot.call());
        }
        return quarters;
    }

    public long count(Cut cut) {
        return cuts.get(cut.ordinal());
    }

    @Override
    public String toString() {
        return "%d mid-body, %d mid-response, %d mid-stream".formatted(count(Cut.MID_BODY), count(Cut.MID_RESPONSE), count(Cut.MID_STREAM));
    }

    /**
     * What the app's /stats must show after every case has run: no handler running or failed, each
     * one started, and every mid-body and mid-stream handler (which cannot finish without its client)
     * told of the disconnect. Returns the problems found, empty when there are none.
     */
    public List<String> outcomeProblems(String stats, int cases) {
        List<String> problems = new ArrayList<>();
        if (AppState.running(stats) != 0) {
            problems.add("handlers still running: " + AppState.running(stats));
        }
        if (AppState.count(stats, "failed") != 0) {
            problems.add("handlers that raised something else: " + AppState.count(stats, "failed"));
        }
        if (AppState.count(stats, "started") < cases) {
            problems.add("handlers started: " + AppState.count(stats, "started") + " < " + cases);
        }
        long cutOff = AppState.count(stats, "disconnect") + AppState.count(stats, "cancelled");
        long mustBeTold = count(Cut.MID_BODY) + count(Cut.MID_STREAM);
        if (cutOff < mustBeTold) {
            problems.add("handlers that got http.disconnect or CancelledError: " + cutOff + " < " + mustBeTold);
        }
        return problems;
    }

    private void abortOne(int port, SplittableRandom random) throws IOException {
        Cut cut = Cut.values()[random.nextInt(3)];
        cuts.incrementAndGet(cut.ordinal());
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            if (random.nextBoolean()) {
                socket.setSoLinger(true, 0); // close with a reset
            }
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            switch (cut) {
                case MID_BODY -> {
                    out.write("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    out.write(new byte[random.nextInt(20_000)]);
                    out.flush();
                    awaitHandlerStart(socket);
                }
                case MID_RESPONSE -> {
                    out.write("GET /big?1048576 HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    in.readNBytes(1 + random.nextInt(512 << 10));
                }
                case MID_STREAM -> {
                    out.write("GET /endless HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    in.readNBytes(1 + random.nextInt(64 << 10));
                }
            }
        }
    }

    /** Gives the server a moment to hand the part-sent request to the app before the client goes (it answers nothing yet). */
    private static void awaitHandlerStart(Socket socket) throws IOException {
        socket.setSoTimeout(20);
        try {
            socket.getInputStream().read();
        } catch (SocketTimeoutException e) {
            // the expected silence
        }
    }
}
