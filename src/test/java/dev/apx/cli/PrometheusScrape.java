package dev.apx.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A metrics endpoint as Prometheus reads it: scraped over HTTP, parsed by prometheus_client's parsers
 * (clients/parse_metrics.py in the 3.11 venv) into {@code name{label=value,...} -> value}, labels sorted.
 */
final class PrometheusScrape {
    private static final Path PYTHON = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();
    private static final Path PARSER = Path.of("src/test/resources/clients/parse_metrics.py").toAbsolutePath();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    private PrometheusScrape() {
    }

    /** Scrapes (text format) until {@code until} holds, for up to 10 s: the bridge counts a coroutine just after its response went out. */
    static Map<String, Double> scrape(String host, int port, Predicate<Map<String, Double>> until) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            Map<String, Double> samples = parse(response.body(), "text");
            if (until.test(samples) || System.nanoTime() > deadline) {
                return samples;
            }
            Thread.sleep(50);
        }
    }

    /** prometheus_client's parser ({@code format}: text or openmetrics): fails the test if it rejects the exposition. */
    static Map<String, Double> parse(String exposition, String format) throws Exception {
        Process process = new ProcessBuilder(PYTHON.toString(), PARSER.toString(), format).start();
        CompletableFuture<String> errors = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        try (var in = process.getOutputStream()) {
            in.write(exposition.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            fail("prometheus_client's %s parser rejected the exposition: %s", format, errors.get());
        }
        Map<String, Double> samples = new HashMap<>();
        for (String line : out.split("\n")) {
            if (!line.isEmpty()) {
                String[] parts = line.split("\t");
                samples.put(parts[0], Double.parseDouble(parts[1]));
            }
        }
        return samples;
    }

    /** The sum of a series over every value of its {@code worker} label ({@code series} is the key without it, e.g. {@code x{a=b,}}). */
    static double sumOverWorkers(Map<String, Double> samples, String name, String labelsBeforeWorker) {
        String prefix = name + "{" + labelsBeforeWorker + "worker=";
        return samples.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToDouble(Map.Entry::getValue).sum();
    }
}
