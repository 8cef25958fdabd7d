package dev.apx.metrics;

import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeConfig;
import dev.apx.config.LoopKind;
import dev.apx.python.PyRef;
import dev.apx.python.TestPython;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Python's series on every supported CPython (_apx._metrics and the GIL timing), read from the
 * endpoint: a loop blocked for 600 ms shows as lag, an explicit gc.collect() as a generation-2
 * collection with its pause, the probe's GIL waits, asyncio's ready queue and the tasks alive; and
 * a runtime without a loop (WSGI), whose GC totals the probe fetches.
 */
class PythonMetricsTest {
    private Bridge bridge;
    private Metrics metrics;

    @BeforeEach
    void start() {
        bridge = Bridge.start(TestPython.interpreter(), BridgeConfig.defaults().withLoop(LoopKind.ASYNCIO));
        metrics = Metrics.start(new MetricsConfig("127.0.0.1", 0, null));
    }

    @AfterEach
    void stop() {
        metrics.close();
        bridge.close();
    }

    @Test
    void loopLagGcGilWaitsReadyQueueAndTasks() throws Exception {
        metrics.watch(0, bridge.interpreter(), bridge);
        Map<String, Double> before = scrape(s -> s.getOrDefault("apx_python_loop_lag_seconds_count{interpreter=\"0\"}", 0.0) > 0);
        double lagBefore = before.get("apx_python_loop_lag_seconds_sum{interpreter=\"0\"}");

        // Synchronous code on the loop: the probe's timer (due every 250 ms) comes at least
        // 600 - 250 = 350 ms late, wherever in its interval the block begins.
        bridge.runOnLoop(gil -> {
            try (PyRef time = gil.importModule("time")) {
                time.callMethod(gil, "sleep", 0.6).close();
            }
        });
        TestPython.interpreter().run(gil -> {
            try (PyRef gc = gil.importModule("gc")) {
                gc.callMethod(gil, "collect").close();
            }
        });
        Map<String, Double> after = scrape(s -> s.get("apx_python_loop_lag_seconds_sum{interpreter=\"0\"}") - lagBefore >= 0.3
                && s.get("apx_python_gc_collections_total{generation=\"2\",interpreter=\"0\"}") > before.get("apx_python_gc_collections_total{generation=\"2\",interpreter=\"0\"}")
                && s.get("apx_python_gc_pause_seconds_total{generation=\"2\",interpreter=\"0\"}") > before.get("apx_python_gc_pause_seconds_total{generation=\"2\",interpreter=\"0\"}")
                && s.getOrDefault("apx_python_gil_wait_seconds_count{interpreter=\"0\",thread=\"probe\"}", 0.0) > 0);

        assertThat(after.get("apx_python_loop_lag_seconds_sum{interpreter=\"0\"}") - lagBefore).as("the 600 ms the loop was blocked, less one probe interval").isGreaterThanOrEqualTo(0.3);
        assertThat(after.get("apx_python_gc_collections_total{generation=\"2\",interpreter=\"0\"}"))
                .isGreaterThan(before.get("apx_python_gc_collections_total{generation=\"2\",interpreter=\"0\"}"));
        assertThat(after.get("apx_python_gc_pause_seconds_total{generation=\"2\",interpreter=\"0\"}"))
                .isGreaterThan(before.get("apx_python_gc_pause_seconds_total{generation=\"2\",interpreter=\"0\"}"));
        assertThat(after.get("apx_python_gil_wait_seconds_count{interpreter=\"0\",thread=\"probe\"}")).isPositive();
        assertThat(after).containsKey("apx_python_loop_ready_callbacks{interpreter=\"0\"}"); // asyncio's loop._ready
        assertThat(after.get("apx_python_tasks{interpreter=\"0\"}")).as("the loop's root task at least").isGreaterThanOrEqualTo(1);
    }

    /** A WSGI app's runtime has no loop: the probe fetches the GC's totals (_apx._metrics.report_gc) as it takes the GIL. */
    @Test
    void withoutALoopTheGilWaitsAndTheGcOnly() throws Exception {
        metrics.watch(1, TestPython.interpreter(), null);
        Map<String, Double> before = scrape(s -> s.getOrDefault("apx_python_gil_wait_seconds_count{interpreter=\"1\",thread=\"probe\"}", 0.0) > 0);
        String collections = "apx_python_gc_collections_total{generation=\"2\",interpreter=\"1\"}";
        String pauses = "apx_python_gc_pause_seconds_total{generation=\"2\",interpreter=\"1\"}";

        TestPython.interpreter().run(gil -> {
            try (PyRef gc = gil.importModule("gc")) {
                gc.callMethod(gil, "collect").close();
            }
        });
        Map<String, Double> after = scrape(s -> s.get(collections) > before.get(collections) && s.get(pauses) > before.get(pauses));

        assertThat(after.get(collections)).isGreaterThan(before.get(collections));
        assertThat(after.get(pauses)).isGreaterThan(before.get(pauses));
        assertThat(after.keySet()).noneMatch(key -> key.startsWith("apx_python_loop_") || key.startsWith("apx_python_tasks")
                || key.startsWith("apx_bridge_"));
    }

    /** The endpoint's text lines as {@code name{labels} -> value}, until {@code until} holds (10 s at most). */
    private Map<String, Double> scrape(Predicate<Map<String, Double>> until) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            String body = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Map<String, Double> samples = new HashMap<>();
            for (String line : body.split("\n")) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    int space = line.lastIndexOf(' ');
                    samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
                }
            }
            if (until.test(samples) || System.nanoTime() > deadline) {
                return samples;
            }
            Thread.sleep(50);
        }
    }
}
