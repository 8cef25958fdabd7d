package dev.apx.metrics;

/**
 * Where the Prometheus endpoint listens ({@code --metrics-host}, {@code --metrics-port}) and which
 * worker this process is: with {@code --workers} the supervisor names each worker
 * ({@code APX_WORKER_ID}), and every series carries {@code worker="<id>"}; null without workers.
 */
public record MetricsConfig(String host, int port, String worker) {
    public MetricsConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--metrics-port must be 0 to 65535, got " + port);
        }
        PrometheusClient.require(); // an optional dependency of the library: fail here, with what to add
        if (worker != null && worker.isBlank()) {
            worker = null;
        }
    }
}
