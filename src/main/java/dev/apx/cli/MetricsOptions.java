package dev.apx.cli;

import dev.apx.config.Defaults;
import dev.apx.config.MetricsSettings;

import picocli.CommandLine.Option;


/** The {@code --metrics*} flags, mixed into {@link Main}; {@link #settings} maps them. */
final class MetricsOptions {
    @Option(names = "--metrics", negatable = true, defaultValue = "false", fallbackValue = "true", descriptionKey = "metrics.enabled")
    boolean enabled;

    @Option(names = "--metrics-host", defaultValue = Defaults.METRICS_HOST, paramLabel = "HOST", descriptionKey = "metrics.host")
    String host;

    @Option(names = "--metrics-port", defaultValue = "" + Defaults.METRICS_PORT, paramLabel = "PORT", descriptionKey = "metrics.port")
    int port;

    MetricsSettings settings() {
        return MetricsSettings.builder().enabled(enabled).host(host).port(port).build();
    }
}
