package dev.apx.server;

import dev.apx.log.Log;
import dev.apx.server.api.Response;
import dev.apx.server.http1.DecoderFuzzTest;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.Socket;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property-based fuzzing of whole connections: random and mutated requests ({@link RequestShapes})
 * written in pieces to a real socket of apx serving {@code apxtest.hostile_apps} on the embedded
 * CPython, then the client half-closes. For every input the client reads valid HTTP responses and
 * a close (never a hang), the app saw only well-formed scopes, no handler is left running, and a
 * good request on a new connection succeeds. 1,000 connections, in the 3.11 fork only; with
 * {@link DecoderFuzzTest} the normal run fuzzes 101,000 inputs.
 */
class ConnectionFuzzTest {
    private static final int CASES = Integer.getInteger("apx.fuzz.connectionCases", 1_000);

    @Test
    void everyConnectionGetsValidResponsesAndACloseAndTheAppSeesOnlyWellFormedScopes() throws Exception {
        OnceOnly.inThe311Fork();
        long seed = RequestShapes.runSeed();
        ServerConfig config = ServerConfig.defaults().withAccessLog(false);
        Log.setLevel(Log.Level.ERROR);
        try (TestServer server = new TestServer("apxtest.hostile_apps", "app",
                config.withLimits(config.limits().withMaxBody(100_000)))) {
            int answered = 0;
            for (int i = 0; i < CASES; i++) {
                SplittableRandom random = RequestShapes.caseRandom(seed, i);
                byte[] input = RequestShapes.any(random);
                try {
                    answered += oneConnection(server.port(), RequestShapes.pieces(input, random)).isEmpty() ? 0 : 1;
                    goodRequestSucceeds(server.port());
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError("fuzz case " + i + " of seed " + seed + " (-Dapx.fuzz.seed=" + seed + "): "
                            + RequestShapes.show(input), e);
                }
            }
            assertThat(answered).as("connections that got a response").isGreaterThan(CASES / 2);
            String stats = AppState.awaitIdle(server.port());
            assertThat(AppState.running(stats)).as("handlers still running").isZero();
            assertThat(AppState.count(stats, "failed")).as("handlers that raised").isZero();
            assertThat(AppState.seen(server.port())).contains("\"malformed\": []");
        } finally {
            Log.setLevel(Log.Level.INFO);
        }
    }

    private static List<ResponseStream.Response> oneConnection(int port, List<byte[]> pieces) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            try {
                for (byte[] piece : pieces) {
                    out.write(piece);
                    out.flush();
                }
                socket.shutdownOutput();
            } catch (java.net.SocketException e) {
                // the server refused and closed before everything was written: what it said still counts
            }
            String response = RawHttp.readAll(socket.getInputStream());
            assertThat(response).as("the server closes").doesNotEndWith("TIMEOUT");
            List<ResponseStream.Response> responses = ResponseStream.parse(response, null);
            for (ResponseStream.Response r : responses.subList(0, Math.max(0, responses.size() - 1))) {
                assertThat(r.status()).as("only the last response may be an error").isLessThan(400);
            }
            return responses;
        }
    }

    private static void goodRequestSucceeds(int port) {
        String response = RawHttp.exchange(port, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        assertThat(response).as("a good request on a new connection").startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n2 bytes");
    }
}
