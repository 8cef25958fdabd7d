package dev.apx.config;

import java.util.Objects;

/**
 * The JIT warm-up at start: requests to a server of apx's own with a built-in app, never the user's.
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param requests JIT warm-up requests (0: none); default {@link Defaults#WARMUP}
 * @param mode when the warm-up runs; default {@link Defaults#WARMUP_MODE}
 */
public record WarmupSettings(int requests, WarmupMode mode) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public WarmupSettings {
        if (requests < 0) {
            throw new IllegalArgumentException("--warmup must be 0 or more requests, got " + requests);
        }
        Objects.requireNonNull(mode, "mode");
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
        builder.requests = requests;
        builder.mode = mode;
        return builder;
    }

    /** Builds a {@link WarmupSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private int requests = Defaults.WARMUP;
        private WarmupMode mode = Defaults.WARMUP_MODE;

        private Builder() {
        }

        /**
         * JIT warm-up requests (0: none).
         * The requests (HTTP/1.1, h2, WebSocket messages; TLS when configured) go over loopback TCP to a
         * server of apx's own on 127.0.0.1 with a built-in app, never APP, so that the first clients meet
         * compiled code.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder requests(int value) {
            this.requests = value;
            return this;
        }

        /**
         * When the warm-up runs.
         * idle: after the port opens, only while the server has had no request for 100 ms; it ends once apx
         * has answered --warmup requests of its own. before: the port opens after it, and the first clients
         * wait about 1.5 s longer. --io loop always warms up before.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder mode(WarmupMode value) {
            this.mode = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public WarmupSettings build() {
            return new WarmupSettings(requests, mode);
        }
    }
}
