package dev.apx.config;

import java.util.Objects;

/**
 * The Prometheus endpoint (docs/metrics.md).
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param enabled serve Prometheus metrics; default false
 * @param host metrics endpoint's host; default {@link Defaults#METRICS_HOST}
 * @param port metrics endpoint's port (0: any free); default {@link Defaults#METRICS_PORT}
 */
public record MetricsSettings(boolean enabled, String host, int port) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public MetricsSettings {
        Objects.requireNonNull(host, "host");
        if (enabled && (port < 0 || port > 65535)) {
            throw new IllegalArgumentException("--metrics-port must be 0 to 65535, got " + port);
        }
    }

    /**
     * A builder with every setting at its default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding this record's values.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.enabled = enabled;
        builder.host = host;
        builder.port = port;
        return builder;
    }

    /** Builds a {@link MetricsSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private boolean enabled = false;
        private String host = Defaults.METRICS_HOST;
        private int port = Defaults.METRICS_PORT;

        private Builder() {
        }

        /**
         * Serve Prometheus metrics.
         * HTTP, WebSocket, bridge, Python GIL, loop and GC, and JVM series, on --metrics-host:--metrics-port,
         * apart from the app's port (docs/metrics.md).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder enabled(boolean value) {
            this.enabled = value;
            return this;
        }

        /**
         * Metrics endpoint's host.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder host(String value) {
            this.host = value;
            return this;
        }

        /**
         * Metrics endpoint's port (0: any free).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder port(int value) {
            this.port = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public MetricsSettings build() {
            return new MetricsSettings(enabled, host, port);
        }
    }
}
