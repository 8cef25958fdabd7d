package dev.apx.server.http2;

import dev.apx.server.shared.Http2Config;

import dev.apx.server.shared.Protocols;

import dev.apx.server.shared.ServerConfig;

import dev.apx.python.TestPython;
import dev.apx.server.OnceOnly;
import dev.apx.server.TestServer;
import dev.apx.server.tls.TestCerts;
import dev.apx.server.tls.TlsConfig;
import dev.apx.server.tls.TlsContext;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RFC 9113 section 5.1's stream states as h2spec checks them (http2/5.1.1/2, http2/5.1/6, 9, 11,
 * 12), with raw frames (hyperframe and hpack, src/test/resources/clients/h2_stream_states.py)
 * over a real socket, in cleartext with prior knowledge and over TLS with ALPN: the GOAWAY or
 * RST_STREAM code the RFC demands, and beside them the frames racing a reset the server sent,
 * which must stay stream errors. Runs in the 3.11 fork only (the Java side's behaviour).
 */
class Http2StreamStatesTest {
    private static final Path SCRIPT = Path.of("src/test/resources/clients/h2_stream_states.py").toAbsolutePath();
    private static final List<String> CASES = List.of("lower_stream_id", "skipped_stream_id", "headers_on_closed_stream",
            "data_on_closed_stream", "headers_on_half_closed_stream", "h2spec_half_closed", "headers_after_client_reset",
            "data_after_server_reset");

    @TempDir
    static Path dir;
    static TestCerts certs;

    @BeforeAll
    static void setUp() throws Exception {
        OnceOnly.inThe311Fork();
        certs = new TestCerts(dir);
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    void framesInTheWrongStreamStateGetTheRfcsErrors(boolean tls) throws Exception {
        ServerConfig config = ServerConfig.defaults().withAccessLog(false);
        if (tls) {
            TlsConfig files = new TlsConfig(certs.serverCert, certs.serverKey, null, null, 0, null, TlsConfig.PROTOCOL_TLS_SERVER, "auto");
            config = config.withProtocols(new Protocols(TlsContext.load(files, true), Http2Config.defaults()));
        }
        run(config, tls, CASES);
    }

    /** --h2-max-concurrent-streams 1: DATA already sent on a refused stream costs that stream, not the connection. */
    @Test
    void dataCrossingARefusalOfTheStreamLimitKeepsTheConnection() throws Exception {
        Http2Config one = new Http2Config(true, 1, 65536, 65535, 16384, false);
        run(ServerConfig.defaults().withAccessLog(false).withProtocols(new Protocols(null, one)), false, List.of("data_after_refused_stream"));
    }

    /**
     * A graceful shutdown's GOAWAY while stream 1 runs, then a stream the client opens after it with a frame
     * right behind its HEADERS (a WINDOW_UPDATE as httpx sends, DATA, RST_STREAM): ignored or refused (RFC 9113
     * 6.8), never the connection error that cut stream 1. One server per case: its shutdown is the trigger.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"after_goaway_window_update", "after_goaway_data", "after_goaway_rst_stream"})
    void framesOnAStreamOpenedAfterGoawayKeepTheStreamsInFlight(String name) throws Exception {
        run(ServerConfig.defaults().withAccessLog(false), false, List.of(name), server -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.server.inFlight() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(server.server.inFlight()).as("stream 1's /slow runs").isPositive();
            server.server.stopAccepting(); // GOAWAY(last 1, NO_ERROR); stream 1 may finish
        });
    }

    interface WhileRunning {
        void accept(TestServer server) throws Exception;
    }

    private static void run(ServerConfig config, boolean tls, List<String> cases) throws Exception {
        run(config, tls, cases, server -> {
        });
    }

    private static void run(ServerConfig config, boolean tls, List<String> cases, WhileRunning whileRunning) throws Exception {
        try (TestServer server = new TestServer("apxtest.tls_apps", "app", config)) {
            ProcessBuilder command = new ProcessBuilder(TestPython.python().toString(), SCRIPT.toString(),
                    String.valueOf(server.port()), String.join(",", cases));
            if (tls) {
                command.environment().put("H2_CA", certs.caCert.toString());
            }
            Path out = Files.createTempFile(dir, "out", ".txt");
            Process process = command.redirectErrorStream(true).redirectOutput(out.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            try {
                whileRunning.accept(server);
            } catch (Exception | AssertionError e) {
                process.destroyForcibly();
                throw e;
            }
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            String output = Files.readString(out);
            for (String name : cases) {
                assertThat(output).as("h2_stream_states.py:%n%s", output).contains("ok: " + name + "\n");
            }
            assertThat(process.exitValue()).as(output).isZero();
        }
    }
}
