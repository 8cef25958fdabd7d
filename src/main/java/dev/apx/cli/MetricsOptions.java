package dev.apx.cli;

import dev.apx.metrics.MetricsConfig;

import picocli.CommandLine.Option;

import java.util.Map;

/** The {@code --metrics*} flags, mixed into {@link Main}; {@link #config} is null when metrics are off. */
final class MetricsOptions {
    /** Set by the supervisor of {@code --workers} in each worker's environment: the worker label of its series. */
    static final String WORKER_ID_ENV = "APX_WORKER_ID";

    @Option(names = "--metrics", negatable = true, defaultValue = "false", fallbackValue = "true",
            description = {"Serve Prometheus metrics.",
                    "HTTP, WebSocket, bridge, Python GIL, loop and GC, and JVM series, on --metrics-host:--metrics-port, "
                    + "apart from the app's port (docs/metrics.md)."})
    boolean enabled;

    @Option(names = "--metrics-host", defaultValue = "127.0.0.1", paramLabel = "HOST",
            description = "Metrics endpoint's host.")
    String host;

    @Option(names = "--metrics-port", defaultValue = "9090", paramLabel = "PORT",
            description = "Metrics endpoint's port (0: any free).")
    int port;

    /**
     * Null without {@code --metrics}; a bad port fails here, before Python starts. A worker (the
     * supervisor set {@value #WORKER_ID_ENV}) serves its own series on 127.0.0.1, any free port, for
     * the supervisor to scrape: the flags' address is the supervisor's (docs/metrics.md).
     */
    MetricsConfig config(Map<String, String> env) {
        if (!enabled) {
            return null;
        }
        String worker = env.get(WORKER_ID_ENV);
        return worker != null && !worker.isBlank() ? new MetricsConfig("127.0.0.1", 0, worker) : new MetricsConfig(host, port, null);
    }
}
