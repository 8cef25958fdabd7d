package dev.apx.spring;

import dev.apx.ChildProcesses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static dev.apx.ChildProcesses.PYTHON;
import static dev.apx.ChildProcesses.awaitLine;
import static dev.apx.ChildProcesses.installApx;
import static dev.apx.ChildProcesses.java;
import static dev.apx.ChildProcesses.run;
import static dev.apx.ChildProcesses.watch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * examples/spring-boot as a Spring Boot team builds and runs it: dev.apx:apx and the starter
 * (spring-boot/starter) from the local repository, the example repackaged by spring-boot-maven-plugin
 * into one executable jar (apx's jar nested inside, nothing unpacked), started with {@code java -jar}
 * and no JVM flags, driven over HTTP, then stopped with SIGTERM.
 */
class SpringBootExampleIT {
    private static final Path ROOT = Path.of(".").toAbsolutePath().normalize();
    private static final Path STARTER = ROOT.resolve("spring-boot/starter");
    private static final Path EXAMPLE = ROOT.resolve("examples/spring-boot");
    private static final Path JAR = EXAMPLE.resolve("target/spring-boot-example.jar");
    private static final String FORM = "application/x-www-form-urlencoded";

    @BeforeAll
    static void buildTheExample() throws Exception {
        // as JavaHostIT: this build's jar into ~/.m2, then the starter and the example with Maven, their
        // other dependencies (Spring Boot) from Maven Central on first use
        installApx();
        run(STARTER, 300, "mvn", "-B", "-ntp", "-q", "clean", "install");
        run(EXAMPLE, 300, "mvn", "-B", "-ntp", "-q", "clean", "package"); // clean: an up-to-date jar is not repackaged with a newer starter
    }

    @Test
    void theExecutableJarNestsApxAndAsksForNativeAccess() throws IOException {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Enable-Native-Access")).isEqualTo("ALL-UNNAMED");
            JarEntry apx = jar.getJarEntry("BOOT-INF/lib/apx-0.1.0-SNAPSHOT.jar");
            assertThat(apx).as("apx's jar nested in the executable jar").isNotNull();
            // spring-boot-maven-plugin marks a <requiresUnpack> library with this entry comment
            assertThat(String.valueOf(apx.getComment())).as("apx's jar is not unpacked at run time").doesNotStartWith("UNPACK");
        }
    }

    /**
     * apx's own server (Netty, the Prometheus client) on the jars Spring Boot's dependency management
     * put in the executable jar, which are not the versions apx's build uses.
     */
    @Test
    void apxsOwnServerRunsOnTheVersionsSpringBootPicked() throws Exception {
        Path lib = Files.createTempDirectory("spring-boot-example-lib");
        try (JarFile jar = new JarFile(JAR.toFile())) {
            for (JarEntry entry : jar.stream().filter(e -> e.getName().startsWith("BOOT-INF/lib/")).toList()) {
                try (var in = jar.getInputStream(entry)) {
                    Files.copy(in, lib.resolve(Path.of(entry.getName()).getFileName()));
                }
            }
        }
        List<String> jars;
        try (Stream<Path> files = Files.list(lib)) {
            jars = files.map(p -> p.getFileName().toString()).toList();
        }
        assertThat(jars).as("the versions docs/spring-boot.md names").contains("netty-codec-http-4.2.20.Final.jar");
        // the metrics are checked where the application has the Prometheus client (a lean apx leaves it to the host)
        boolean prometheus = jars.stream().anyMatch(name -> name.startsWith("prometheus-metrics-core-"));
        if (prometheus) {
            assertThat(jars).as("the versions docs/spring-boot.md names").contains("prometheus-metrics-core-1.7.0.jar");
        }
        List<String> command = new java.util.ArrayList<>(List.of(java(),
                "--enable-native-access=ALL-UNNAMED", "-cp", lib + "/*", "dev.apx.cli.Main", "--python", PYTHON.toString(),
                "--app-dir", EXAMPLE.resolve("python").toString(), "--port", "0", "boot_app:app"));
        if (prometheus) {
            command.addAll(List.of("--metrics", "--metrics-port", "0"));
        }
        Process apx = new ProcessBuilder(command).redirectErrorStream(true).start();
        ChildProcesses.Output output = watch(apx, Pattern.compile("running on http://127\\.0\\.0\\.1:(\\d+)"),
                Pattern.compile("[Mm]etrics .*http://127\\.0\\.0\\.1:(\\d+)"));
        try (HttpClient client = HttpClient.newHttpClient()) {
            String base = "http://127.0.0.1:" + output.port(0).get(60, TimeUnit.SECONDS);
            assertThat(get(client, base + "/items/5?q=a")).isEqualTo("200 {\"item_id\":5,\"q\":\"a\"}");
            assertThat(send(client, "PUT", base + "/form", FORM, "name=pen")).contains("\"body\":\"name=pen\"");
            if (prometheus) {
                String metrics = get(client, "http://127.0.0.1:" + output.port(1).get(10, TimeUnit.SECONDS) + "/metrics");
                assertThat(metrics).startsWith("200 ").contains("apx_http_connections_total", "jvm_threads_current");
            }
        } finally {
            apx.destroy();
            assertThat(apx.waitFor(30, TimeUnit.SECONDS)).isTrue();
            deleteTree(lib);
        }
    }

    @Test
    void servesFastApiAndTheControllerThenShutsDownInSpringsOrder() throws Exception {
        Path events = Files.createTempFile("spring-boot-example", ".log");
        Path cache = Files.createTempDirectory("spring-boot-example-cache");
        ProcessBuilder builder = new ProcessBuilder(java(),
                "-jar", JAR.toString(), "--server.port=0", "--spring.mvc.hiddenmethod.filter.enabled=true")
                .directory(EXAMPLE.toFile()).redirectErrorStream(true);
        builder.environment().put("APX_PYTHON", PYTHON.toString());
        builder.environment().put("APX_BOOT_LOG", events.toString());
        builder.environment().put("XDG_CACHE_HOME", cache.toString()); // where apx copies its Python helpers
        Process boot = builder.start();
        ChildProcesses.Output output = watch(boot, Pattern.compile("Tomcat started on port (\\d+)"));
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            String base = "http://127.0.0.1:" + output.port(0).get(120, TimeUnit.SECONDS);

            assertThat(get(client, base + "/py/items/5?q=a")).isEqualTo("200 {\"item_id\":5,\"q\":\"a\"}");
            assertThat(send(client, "POST", base + "/py/items", "application/json", "{\"name\":\"pen\",\"price\":2.5}"))
                    .isEqualTo("200 {\"name\":\"pen\",\"price_with_tax\":3.0,\"tags\":[]}");
            assertThat(send(client, "POST", base + "/py/items", "application/json", "{\"name\":\"pen\"}"))
                    .startsWith("422 {\"detail\":[{\"type\":\"missing\",\"loc\":[\"body\",\"price\"]");

            // form bodies reach Python as sent: Spring MVC's form filters (FormContentFilter for PUT/PATCH/DELETE,
            // HiddenHttpMethodFilter, turned on above, for POST) would have read them into parameters
            for (String method : List.of("PUT", "PATCH", "DELETE", "POST")) {
                assertThat(send(client, method, base + "/py/form", FORM, "name=pen&price=2.5&_method=GET")).as(method)
                        .isEqualTo("200 {\"method\":\"" + method + "\",\"content_type\":\"" + FORM + "\",\"body\":\"name=pen&price=2.5&_method=GET\","
                                + "\"fields\":{\"name\":\"pen\",\"price\":\"2.5\",\"_method\":\"GET\"}}");
            }
            // ... while Spring MVC's own endpoints still get their PUT forms parsed
            assertThat(send(client, "PUT", base + "/java/form", FORM, "name=pen")).isEqualTo("200 java got name=pen");

            // the controller calls the app in-process
            assertThat(get(client, base + "/java/price?name=pen&price=2.5"))
                    .isEqualTo("200 {\"from\":\"java\",\"python\":{\"name\":\"pen\",\"price_with_tax\":3.0,\"tags\":[]}}");

            // the helpers came from a copy, the JVM ran libpython with no native-access flag and no warning
            try (Stream<Path> copies = Files.list(cache.resolve("apx"))) {
                assertThat(copies.map(dir -> dir.resolve("_apx/__init__.py"))).singleElement().matches(Files::isRegularFile);
            }
            assertThat(output.text()).doesNotContain("WARNING: A restricted method", "enable-native-access");

            // SIGTERM with a request in flight: Spring stops taking requests, lets that one finish,
            // stops the web server and only then closes the app (its lifespan shutdown)
            CompletableFuture<HttpResponse<String>> slow = client.sendAsync(
                    HttpRequest.newBuilder(URI.create(base + "/py/slow?seconds=1.5")).build(), HttpResponse.BodyHandlers.ofString());
            awaitLine(events, "slow request started");
            boot.destroy(); // SIGTERM
            HttpResponse<String> finished = slow.get(30, TimeUnit.SECONDS);
            assertThat(finished.statusCode() + " " + finished.body()).isEqualTo("200 {\"slept\":1.5}");
            assertThat(boot.waitFor(60, TimeUnit.SECONDS)).as("the application exits").isTrue();
            // 128 + SIGTERM: the JVM's exit status after a SIGTERM whose shutdown hooks all ran
            assertThat(boot.exitValue()).as(output.text()).isEqualTo(143);
            assertThat(Files.readAllLines(events))
                    .containsExactly("lifespan startup", "slow request started", "slow request done", "lifespan shutdown");
            assertThat(output.text()).doesNotContain("Exception", "ERROR");
        } finally {
            boot.destroyForcibly();
            Files.deleteIfExists(events);
            deleteTree(cache);
        }
    }

    private static String get(HttpClient client, String url) throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body();
    }

    private static String send(HttpClient client, String method, String url, String contentType, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body();
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
