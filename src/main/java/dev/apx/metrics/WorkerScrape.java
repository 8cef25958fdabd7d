package dev.apx.metrics;

import io.prometheus.metrics.exporter.common.PrometheusHttpRequest;
import io.prometheus.metrics.expositionformats.TextFormatUtil;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusScrapeRequest;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * On each scrape of the supervisor: every worker's series, fetched from its private endpoint at once
 * (all workers in parallel), merged family by family (they differ by their {@code worker} label),
 * plus {@code apx_supervisor_worker_scrape_ok{worker}}. A worker that does not answer in time is
 * left out of that scrape (its {@code scrape_ok} is 0): one stuck worker does not fail the scrape.
 * The time allowed is 80 % of the scraper's own timeout when it sends it (Prometheus's
 * {@code X-Prometheus-Scrape-Timeout-Seconds}), else {@link #DEFAULT_TIMEOUT}.
 */
final class WorkerScrape implements MultiCollector {
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    private static final String PROTOBUF = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

    private final Supplier<List<SupervisorMetrics.Worker>> targets;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    WorkerScrape(Supplier<List<SupervisorMetrics.Worker>> targets) {
        this.targets = targets;
    }

    @Override
    public MetricSnapshots collect() {
        return collect((PrometheusScrapeRequest) null);
    }

    @Override
    public MetricSnapshots collect(PrometheusScrapeRequest request) {
        long deadline = System.nanoTime() + timeout(request).toNanos();
        List<SupervisorMetrics.Worker> all = targets.get();
        List<CompletableFuture<HttpResponse<byte[]>>> pending = new ArrayList<>();
        for (SupervisorMetrics.Worker target : all) {
            pending.add(target.port() <= 0 ? null : client.sendAsync(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + target.port() + "/metrics")).header("Accept", PROTOBUF)
                    .timeout(Duration.ofNanos(Math.max(1, deadline - System.nanoTime()))).build(), HttpResponse.BodyHandlers.ofByteArray()));
        }
        List<MetricSnapshot> merged = new ArrayList<>();
        GaugeSnapshot.Builder scrapeOk = GaugeSnapshot.builder().name("apx_supervisor_worker_scrape_ok")
                .help("1 if the worker's series are in this scrape, 0 if it did not answer in time (or is starting)");
        for (int i = 0; i < all.size(); i++) {
            List<MetricSnapshot> series = await(pending.get(i), deadline);
            if (series != null) {
                merged.addAll(series);
            }
            scrapeOk.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(Labels.of("worker", String.valueOf(all.get(i).slot())))
                    .value(series != null ? 1 : 0).build());
        }
        merged.add(scrapeOk.build());
        return TextFormatUtil.mergeDuplicates(new MetricSnapshots(merged));
    }

    /** The worker's families, or null if it did not answer in time or not with its series. */
    private static List<MetricSnapshot> await(CompletableFuture<HttpResponse<byte[]>> response, long deadline) {
        if (response == null) {
            return null;
        }
        try {
            HttpResponse<byte[]> answer = response.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            boolean protobuf = answer.headers().firstValue("content-type").orElse("").startsWith("application/vnd.google.protobuf");
            return answer.statusCode() == 200 && protobuf ? MetricFamilies.decode(answer.body()) : null;
        } catch (TimeoutException | ExecutionException | IOException | RuntimeException e) {
            response.cancel(true);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static Duration timeout(PrometheusScrapeRequest request) {
        if (request instanceof PrometheusHttpRequest http) {
            String seconds = http.getHeader("X-Prometheus-Scrape-Timeout-Seconds");
            try {
                if (seconds != null && Double.parseDouble(seconds) > 0) {
                    return Duration.ofMillis(Math.round(Double.parseDouble(seconds) * 800));
                }
            } catch (NumberFormatException ignored) {
                // not a number: the default
            }
        }
        return DEFAULT_TIMEOUT;
    }

    void close() {
        client.shutdownNow();
    }
}
