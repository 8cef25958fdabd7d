package dev.apx.metrics;

import dev.apx.bridge.Bridge;
import dev.apx.python.Interpreter;
import dev.apx.server.Server;
import dev.apx.server.api.HttpObserver;

import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmNativeMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;

/**
 * {@code --metrics}: one registry for the process, served by the Prometheus library's HTTP server
 * on its own port (never the app's: the app's own {@code /metrics} route stays the app's). The
 * library negotiates the format: OpenMetrics when the scraper asks for it, else the Prometheus text
 * format. Series are documented in docs/metrics.md.
 *
 * <p>Parts join as they start: {@link #start} binds the endpoint first (a taken port fails before
 * Python starts), then each runtime of {@code --interpreters} ({@link #watch(int, Interpreter, Bridge)})
 * and {@link #watch(Server)}. Nothing here runs on the
 * request path except the lock-free updates of {@link HttpMetrics} and the bridge's observers.
 */
public final class Metrics implements AutoCloseable {
    /** The label of every per-runtime series: the runtime's slot, 0..N-1 ({@code --interpreters N}), kept across reloads. */
    static final String INTERPRETER = "interpreter";

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Labels labels;
    private final HttpMetrics http;
    private final Endpoint endpoint;
    private BridgeMetrics bridges; // made at the first ASGI runtime: a WSGI app has no bridge series
    private PythonMetrics python;

    private Metrics(MetricsConfig config) {
        labels = config.worker() == null ? Labels.EMPTY : Labels.of("worker", config.worker());
        registerJvmMetrics();
        http = new HttpMetrics(registry, labels);
        endpoint = Endpoint.serve(config, registry);
    }

    /**
     * The library's standard JVM and process series (its JvmMetrics) but one: the allocation counters
     * ({@code jvm_memory_pool_allocated_bytes_total}) come from a listener the JVM calls after every
     * collection, and young collections come tens of times a second under load, each waking a thread
     * that preempts the server's (docs/metrics.md, "Cost, and how it is hooked in"). All the others are read at scrape time.
     */
    private void registerJvmMetrics() {
        JvmThreadsMetrics.builder().constLabels(labels).register(registry);
        JvmBufferPoolMetrics.builder().constLabels(labels).register(registry);
        JvmClassLoadingMetrics.builder().constLabels(labels).register(registry);
        JvmCompilationMetrics.builder().constLabels(labels).register(registry);
        JvmGarbageCollectorMetrics.builder().constLabels(labels).register(registry);
        JvmMemoryMetrics.builder().constLabels(labels).register(registry);
        JvmNativeMemoryMetrics.builder().constLabels(labels).register(registry);
        JvmRuntimeInfoMetric.builder().constLabels(labels).register(registry);
        ProcessMetrics.builder().constLabels(labels).register(registry);
    }

    /** Binds the endpoint ({@code http://host:port/metrics}) and registers the JVM's series. */
    public static Metrics start(MetricsConfig config) {
        return new Metrics(config);
    }

    /** The port the endpoint listens on (useful with port 0). */
    public int port() {
        return endpoint.port();
    }

    /** What the server tells about connections, requests and WebSockets. */
    public HttpObserver http() {
        return http;
    }

    /**
     * The runtime {@code interpreter} serves slot {@code slot} (0..N-1 of {@code --interpreters}) from
     * now on, at start or in place of the one a reload replaced; {@code bridge} is its event loop's
     * (ASGI), null for a WSGI app. Its series are the children {@code interpreter="<slot>"}: the
     * bridge's counters and per-request histograms (ASGI), Python's GIL waits and GC figures, and the
     * loop's lag, ready queue and tasks (ASGI). A slot's counters go on from the replaced runtimes'
     * counts; its gauges are the live runtime's.
     */
    public synchronized void watch(int slot, Interpreter interpreter, Bridge bridge) {
        if (slot < 0) {
            throw new IllegalArgumentException("a runtime slot is 0 or more, got " + slot);
        }
        if (bridge != null) {
            if (bridges == null) {
                bridges = new BridgeMetrics(registry, labels);
            }
            bridges.watch(slot, bridge);
        }
        if (python == null) {
            python = new PythonMetrics(registry, labels);
        }
        python.watch(slot, interpreter, bridge);
    }

    /** The server's requests in flight. */
    public void watch(Server server) {
        http.watch(server);
    }

    @Override
    public synchronized void close() {
        endpoint.close();
        if (python != null) {
            python.close();
        }
    }
}
