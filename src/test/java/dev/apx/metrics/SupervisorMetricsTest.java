package dev.apx.metrics;

import dev.apx.python.TestPython;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.core.metrics.Summary;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusProtobufWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The supervisor's side of {@code --metrics} with {@code --workers}, in one JVM: a worker's series
 * survive the protobuf round trip exactly (the library's own writers print the same text before and
 * after), and the supervisor's endpoint serves a real worker endpoint's series beside the supervisor's
 * own, leaving out a worker that does not answer within the scraper's timeout. (WorkersIT scrapes
 * real worker processes.)
 */
class SupervisorMetricsTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @BeforeEach
    void onceOnly() {
        assumeTrue(TestPython.install().minorVersion().equals("3.11"), "no Python in it: runs once, in the 3.11 fork");
    }

    @Test
    void everyKindOfSeriesSurvivesTheProtobufRoundTrip() throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        Labels worker = Labels.of("worker", "3");
        JvmMetrics.builder().constLabels(worker).register(registry);
        Counter counter = Counter.builder().name("t_requests").help("with \"quotes\" and \\ and\nnewline")
                .labelNames("method").constLabels(worker).withoutExemplars().register(registry);
        counter.labelValues("GET").inc(7);
        counter.labelValues("we\"ird\nvalue\\").inc(0.5);
        Gauge.builder().name("t_open").help("a gauge").constLabels(worker).register(registry).set(-2.25);
        Histogram histogram = Histogram.builder().name("t_duration_seconds").help("a histogram").classicOnly()
                .classicUpperBounds(0.001, 0.01, 0.1, 1).labelNames("route").constLabels(worker).withoutExemplars().register(registry);
        for (double v : new double[] {0.0005, 0.002, 0.002, 0.5, 3, 0.05}) {
            histogram.labelValues("/").observe(v);
        }
        histogram.labelValues("/x"); // a child with no observations
        Summary summary = Summary.builder().name("t_size_bytes").help("a summary").quantile(0.5, 0.01).quantile(0.99, 0.001)
                .constLabels(worker).register(registry);
        for (int i = 1; i <= 100; i++) {
            summary.observe(i);
        }
        Info.builder().name("t_build_info").help("an info").labelNames("version").constLabels(worker).register(registry)
                .addLabelValues("1.2.3");
        registry.register(() -> UnknownSnapshot.builder().name("t_untyped").help("unknown")
                .dataPoint(UnknownSnapshot.UnknownDataPointSnapshot.builder().labels(worker).value(42).build()).build());
        MetricSnapshots original = registry.scrape();

        ByteArrayOutputStream protobuf = new ByteArrayOutputStream();
        new PrometheusProtobufWriter().write(protobuf, original);
        MetricSnapshots decoded = new MetricSnapshots(MetricFamilies.decode(protobuf.toByteArray()));

        assertThat(text(decoded, PrometheusTextFormatWriter.create())).isEqualTo(text(original, PrometheusTextFormatWriter.create()))
                .contains("t_requests_total{method=\"GET\",worker=\"3\"} 7.0", "t_build_info{version=\"1.2.3\",worker=\"3\"} 1",
                        "t_duration_seconds_bucket{route=\"/\",worker=\"3\",le=\"0.01\"} 3", "jvm_memory_used_bytes{");
        // OpenMetrics: the same but for the units, which the protobuf format does not carry
        assertThat(text(decoded, OpenMetricsTextFormatWriter.create()))
                .isEqualTo(text(original, OpenMetricsTextFormatWriter.create()).replaceAll("(?m)^# UNIT .*\n", ""));
    }

    @Test
    void oneEndpointServesTheWorkersSeriesAndTheSupervisorsAndLeavesOutAStuckWorker() throws Exception {
        try (Metrics worker0 = Metrics.start(new MetricsConfig("127.0.0.1", 0, "0"));
             ServerSocket stuck = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) { // accepts, never answers
            worker0.http().response("GET", 200, 1_000_000, 0, 2);
            worker0.http().response("GET", 200, 1_000_000, 0, 2);
            worker0.http().response("POST", 503, 1_000_000, 0, 2);
            List<SupervisorMetrics.Worker> workers = new CopyOnWriteArrayList<>(List.of(new SupervisorMetrics.Worker(0, worker0.port()),
                    new SupervisorMetrics.Worker(1, 0)));
            try (SupervisorMetrics supervisor = SupervisorMetrics.start(new MetricsConfig("127.0.0.1", 0, null), () -> workers, () -> 2)) {
                supervisor.restarted(SupervisorMetrics.Restart.DIED);
                supervisor.restarted(SupervisorMetrics.Restart.HEALTHCHECK);
                supervisor.restarted(SupervisorMetrics.Restart.DIED);

                HttpResponse<String> open = scrape(supervisor.port(), "application/openmetrics-text; version=1.0.0", 10);
                assertThat(open.headers().firstValue("content-type").orElseThrow()).startsWith("application/openmetrics-text");
                assertThat(open.body()).endsWith("# EOF\n").contains("apx_http_requests_total{method=\"GET\",status=\"2xx\",worker=\"0\"} 2.0",
                        "# TYPE apx_supervisor_worker_restarts counter", "apx_supervisor_worker_scrape_ok{worker=\"0\"} 1.0",
                        "apx_supervisor_worker_scrape_ok{worker=\"1\"} 0.0"); // starting: not asked yet

                workers.set(1, new SupervisorMetrics.Worker(1, stuck.getLocalPort()));
                long start = System.nanoTime();
                HttpResponse<String> text = scrape(supervisor.port(), "text/plain", 2);
                long millis = (System.nanoTime() - start) / 1_000_000;

                assertThat(millis).as("the stuck worker is given 80 %% of the scraper's 2 s, not more").isBetween(1500L, 6000L);
                assertThat(text.headers().firstValue("content-type").orElseThrow()).startsWith("text/plain; version=0.0.4");
                assertThat(text.body()).contains("apx_http_requests_total{method=\"GET\",status=\"2xx\",worker=\"0\"} 2.0",
                        "apx_http_requests_total{method=\"POST\",status=\"5xx\",worker=\"0\"} 1.0",
                        "apx_http_request_duration_seconds_count{worker=\"0\"} 3", "jvm_threads_current{worker=\"0\"} ",
                        "apx_supervisor_worker_scrape_ok{worker=\"0\"} 1.0", "apx_supervisor_worker_scrape_ok{worker=\"1\"} 0.0",
                        "apx_supervisor_workers_alive 2.0",
                        "apx_supervisor_worker_restarts_total{reason=\"died\"} 2.0",
                        "apx_supervisor_worker_restarts_total{reason=\"healthcheck\"} 1.0",
                        "apx_supervisor_worker_restarts_total{reason=\"max_requests\"} 0.0",
                        "apx_supervisor_worker_restarts_total{reason=\"reload\"} 0.0")
                        .doesNotContain("worker=\"1\"} 1");
                assertThat(count(text.body(), "# TYPE apx_http_requests_total counter")).as("one family").isEqualTo(1);
            }
        }
    }

    /** As Prometheus asks: its format, its timeout. */
    private static HttpResponse<String> scrape(int port, String accept, int timeoutSeconds) throws IOException, InterruptedException {
        HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .header("Accept", accept).header("X-Prometheus-Scrape-Timeout-Seconds", String.valueOf(timeoutSeconds)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response;
    }

    private static String text(MetricSnapshots snapshots, io.prometheus.metrics.expositionformats.ExpositionFormatWriter writer)
            throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writer.write(out, snapshots);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int count(String haystack, String needle) {
        return haystack.split(java.util.regex.Pattern.quote(needle), -1).length - 1;
    }
}
