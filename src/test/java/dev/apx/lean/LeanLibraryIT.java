package dev.apx.lean;

import dev.apx.server.tls.TestCerts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * dev.apx:apx as a host's build resolves it: the jar this build made goes into ~/.m2 (as JavaHostIT
 * does), a consumer pom with it and Jetty is resolved by Maven, and {@link LeanHost} runs on exactly
 * that class path: no BoringSSL, BouncyCastle or Prometheus client (the optional dependencies).
 */
class LeanLibraryIT {
    private static final Path PYTHON = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();
    private static final String JETTY = "12.1.13";
    private static List<String> classPath;

    @BeforeAll
    static void resolveTheClassPath() throws Exception {
        run(Path.of("."), "mvn", "-B", "-ntp", "-q", "install:install-file", "-Dfile=target/apx-0.1.0-SNAPSHOT.jar", "-DpomFile=pom.xml");
        Path consumer = Files.createTempDirectory("apx-lean-consumer");
        Files.writeString(consumer.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>lean</groupId><artifactId>host</artifactId><version>1</version>
                  <dependencies>
                    <dependency><groupId>dev.apx</groupId><artifactId>apx</artifactId><version>0.1.0-SNAPSHOT</version></dependency>
                    <dependency><groupId>org.eclipse.jetty.ee10</groupId><artifactId>jetty-ee10-servlet</artifactId><version>%s</version></dependency>
                    <dependency><groupId>org.eclipse.jetty.ee10.websocket</groupId><artifactId>jetty-ee10-websocket-jakarta-server</artifactId><version>%s</version></dependency>
                  </dependencies>
                </project>
                """.formatted(JETTY, JETTY));
        run(consumer, "mvn", "-B", "-ntp", "-q", "dependency:build-classpath", "-Dmdep.outputFile=cp.txt", "-Dmdep.includeScope=runtime");
        classPath = Arrays.asList(Files.readString(consumer.resolve("cp.txt")).strip().split(":"));
    }

    @Test
    void theLibraryPullsNoTlsEngineBouncyCastleOrPrometheus() {
        List<String> names = classPath.stream().map(jar -> Path.of(jar).getFileName().toString()).toList();
        assertThat(names).anyMatch(name -> name.startsWith("apx-0.1.0-SNAPSHOT")).anyMatch(name -> name.startsWith("netty-codec-http2"));
        assertThat(names).noneMatch(name -> name.startsWith("bc") || name.contains("tcnative") || name.startsWith("prometheus"));
        List<String> apx = names.stream() // less Jetty's own
                .filter(name -> !name.startsWith("jetty") && !name.startsWith("jakarta") && !name.startsWith("asm")).toList();
        assertThat(apx).as("apx and its dependencies: " + apx).hasSizeLessThanOrEqualTo(15);
    }

    @Test
    void callsServletWebSocketsAndTlsWorkOnTheLeanClassPath() throws Exception {
        TestCerts certs = new TestCerts(Files.createTempDirectory("apx-lean-tls"));
        String testClasses = Path.of("target/test-classes").toAbsolutePath().toString();
        String output = run(Path.of("."), Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", testClasses + ":" + String.join(":", classPath), LeanHost.class.getName(),
                PYTHON.toString(), Path.of("examples").toAbsolutePath().toString(), testClasses + "/python",
                certs.caCert.toString(), certs.serverCert.toString(), certs.serverKey.toString(), certs.serverKeyPkcs1.toString());
        assertThat(output).contains("call: 200 {\"item_id\":5,\"q\":\"a\"}", "servlet: 200 {\"item_id\":5,\"q\":\"a\"}", "websocket: hi",
                "tls: 200 HTTP_2 {\"item_id\":5,\"q\":\"a\"}", "the JDK's SSLEngine");
        assertThat(output).containsPattern("pkcs1: IllegalArgumentException: .*needs BouncyCastle \\(org.bouncycastle:bcpkix-jdk18on\\)");
        assertThat(output).containsPattern("metrics: IllegalArgumentException: .*--metrics needs the Prometheus Java client");
        assertThat(output).containsPattern("openssl: IllegalArgumentException: .*BoringSSL \\(netty-tcnative\\) does not load here: .*"
                + "io.netty:netty-tcnative-boringssl-static");
    }

    private static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(300, TimeUnit.SECONDS)).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(String.join(" ", command) + "\n" + text).isZero();
        return text;
    }
}
