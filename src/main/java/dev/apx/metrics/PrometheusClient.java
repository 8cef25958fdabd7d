package dev.apx.metrics;

/**
 * Whether the Prometheus Java client, an optional dependency of the library, is on the class path:
 * the command line's jar has it; a host that depends on {@code dev.apx:apx} adds it for {@code --metrics}.
 */
final class PrometheusClient {
    static final String ARTIFACTS = "io.prometheus:prometheus-metrics-core, prometheus-metrics-instrumentation-jvm, "
            + "prometheus-metrics-exporter-httpserver and prometheus-metrics-exposition-formats (1.x)";

    private PrometheusClient() {
    }

    /** Throws IllegalArgumentException naming the artifacts to add when the client is missing. */
    static void require() {
        for (String type : new String[]{"io.prometheus.metrics.core.metrics.Counter", "io.prometheus.metrics.instrumentation.jvm.JvmMetrics",
                "io.prometheus.metrics.exporter.httpserver.HTTPServer", "io.prometheus.metrics.expositionformats.generated.Metrics"}) {
            try {
                Class.forName(type, false, PrometheusClient.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError absent) {
                throw new IllegalArgumentException("--metrics needs the Prometheus Java client on the class path (" + type
                        + " is missing): add " + ARTIFACTS + ", as apx's command-line jar has them");
            }
        }
    }
}
