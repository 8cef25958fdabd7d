package dev.apx.cli;

import dev.apx.server.tls.TestCerts;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TLS and HTTP/2 flags of the packaged jar: each one changes what a real client sees (curl, and
 * the h2 raw-frame client for the SETTINGS values), one given through its APX_ variable; bad files
 * are one {@code apx: error:} line and exit 1 before anything listens.
 */
class ProtocolsIT {
    private static final String JAVA = ProcessHandle.current().info().command().orElseThrow();
    private static final Path JAR = Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath();
    private static final Path PYTHON = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();
    private static final Path H2_CLIENT = Path.of("src/test/resources/clients/h2_client.py").toAbsolutePath();

    @TempDir
    static Path dir;
    static TestCerts certs;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = new TestCerts(dir);
    }

    record Result(int exitCode, String stdout, String stderr) {
    }

    private static Result run(Map<String, String> env, List<String> command) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish: " + Files.readString(err));
        }
        return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static Result curl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "--silent", "--show-error", "--max-time", "30"));
        command.addAll(List.of(args));
        return run(Map.of(), command);
    }

    private static Result apx(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-jar", JAR.toString(),
                "--python", PYTHON.toString(), "--port", "0"));
        command.addAll(List.of(args));
        command.add("apxtest.tls_apps:app");
        return run(Map.of(), command);
    }

    @Test
    void badTlsFilesAndFlagsAreOneErrorLineAndExit1ForFilesAnd2ForFlagValues() throws Exception {
        String[][] cases = {
                {"--ssl-certfile", certs.serverCert.toString(), "--ssl-keyfile", certs.serverKeyEncrypted.toString(),
                        "--ssl-keyfile-password", "wrong", "1|cannot decrypt the private key (wrong --ssl-keyfile-password?)"},
                {"--ssl-certfile", certs.serverCert.toString(), "--ssl-keyfile", certs.otherKey.toString(), "1|does not match the certificate"},
                {"--ssl-certfile", dir.resolve("nope.pem").toString(), "1|nope.pem: no such file"},
                {"--http", "1", "--http2", "2|--http2 conflicts with --http 1"},
                {"--http", "h11", "--h2c-upgrade", "2|--h2c-upgrade conflicts with --http h11"},
                {"--h2-max-frame-size", "100", "2|--h2-max-frame-size must be between 16384 and 16777215"},
        };
        for (String[] c : cases) {
            Result result = apx(java.util.Arrays.copyOf(c, c.length - 1));
            int expected = Integer.parseInt(c[c.length - 1].substring(0, 1));
            assertThat(result.exitCode()).as("%s: %s", List.of(c), result.stderr()).isEqualTo(expected);
            List<String> errors = result.stderr().lines().filter(line -> line.startsWith("apx: error: ")).toList();
            assertThat(errors).as(result.stderr()).hasSize(1);
            assertThat(errors.getFirst()).contains(c[c.length - 1].substring(2));
            assertThat(result.stderr()).as("before the app loads, before any port opens").doesNotContain("apx running", "loaded apxtest");
        }
    }

    @Test
    void everyTlsAndHttp2FlagChangesWhatClientsSee() throws Exception {
        Map<String, String> env = Map.of("APX_SSL_CERTFILE", certs.serverCert.toString());
        try (ApxProcess server = ApxProcess.start(dir, env, "--ssl-keyfile", certs.serverKeyEncrypted.toString(),
                "--ssl-keyfile-password", TestCerts.PASSWORD, "--ssl-ca-certs", certs.caCert.toString(), "--ssl-cert-reqs", "1",
                "--ssl-version", "5", "--ssl-ciphers", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "--ssl-engine", "jdk", "--http2",
                "--h2-max-concurrent-streams", "7", "--h2-max-header-list-size", "9000", "--h2-initial-window-size", "70000",
                "--h2-max-frame-size", "20000", "apxtest.tls_apps:app")) {
            // the TLS line follows the "running on" line the start waited for: wait for it too, not for a race
            server.awaitStderr("TLS by ", 10);
            assertThat(server.stderr()).contains("apx running on https://127.0.0.1:" + server.port, "TLS by the JDK's SSLEngine, ALPN h2, http/1.1");
            String url = "https://127.0.0.1:" + server.port + "/scope";
            String ca = certs.caCert.toString();

            String anonymous = curl("--http2", "--cacert", ca, url).stdout();
            assertThat(anonymous).as("--ssl-version 5: TLS 1.2 only").contains("\"tls_version\": 771");
            assertThat(anonymous).as("--ssl-ciphers").contains("\"cipher_suite\": 49199").contains("\"http_version\": \"2\"");
            assertThat(anonymous).as("--ssl-cert-reqs 1: optional").contains("\"client_cert_name\": null");
            assertThat(curl("--http2", "--cacert", ca, "--cert", certs.clientCert.toString(), "--key", certs.clientKey.toString(), url).stdout())
                    .as("--ssl-ca-certs verifies the client certificate").contains("\"client_cert_name\": \"O=apx,CN=client one\"");
            assertThat(curl("--tlsv1.3", "--cacert", ca, url).exitCode()).as("no TLS 1.3 with --ssl-version 5").isNotZero();

            Result settings = run(Map.of("H2_CA", ca), List.of(PYTHON.toString(), H2_CLIENT.toString(), String.valueOf(server.port), "settings"));
            assertThat(settings.stdout()).as(settings.stderr()).contains("settings: 3=7 4=70000 5=20000 6=9000");
        }
    }

    @Test
    void http1TurnsHttp2Off() throws Exception {
        try (ApxProcess server = ApxProcess.start(dir, Map.of(), "--http", "1", "--ssl-certfile", certs.serverCertAndKey.toString(),
                "apxtest.tls_apps:app")) {
            Result result = curl("--http2", "--cacert", certs.caCert.toString(), "--include", "https://127.0.0.1:" + server.port + "/scope");
            assertThat(result.stdout()).as(result.stderr()).startsWith("HTTP/1.1 200").contains("\"http_version\": \"1.1\"");
            assertThat(server.stderr()).contains("ALPN http/1.1\n");
        }
    }

    @Test
    void h2cUpgradeFromTheEnvironmentTakesUpCurlsUpgrade() throws Exception {
        try (ApxProcess server = ApxProcess.start(dir, Map.of("APX_H2C_UPGRADE", "true"), "apxtest.tls_apps:app")) {
            Result result = curl("--http2", "--include", "http://127.0.0.1:" + server.port + "/scope");
            assertThat(result.stdout()).as(result.stderr()).startsWith("HTTP/1.1 101 Switching Protocols")
                    .contains("\nHTTP/2 200", "\"http_version\": \"2\"");
        }
    }
}
