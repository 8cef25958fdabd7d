package dev.apx.config;

/**
 * WebSockets, with Uvicorn's defaults.
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param enabled take up WebSocket upgrades; default {@link Defaults#WS}
 * @param maxSize largest message, in bytes; in bytes, default {@link Defaults#WS_MAX_SIZE}
 * @param maxQueue messages that may await the app; default {@link Defaults#WS_MAX_QUEUE}
 * @param pingInterval seconds between pings (0: none); in seconds, default {@link Defaults#WS_PING_INTERVAL}
 * @param pingTimeout pong deadline (0: none); in seconds, default {@link Defaults#WS_PING_TIMEOUT}
 * @param perMessageDeflate compress messages (permessage-deflate); default {@link Defaults#WS_PER_MESSAGE_DEFLATE}
 */
public record WebSocketSettings(boolean enabled, int maxSize, int maxQueue, double pingInterval, double pingTimeout,
                                boolean perMessageDeflate) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public WebSocketSettings {
        if (maxQueue <= 0) {
            throw new IllegalArgumentException("--ws-max-queue must be at least 1, got " + maxQueue);
        }
        if (maxSize <= 0) {
            throw new IllegalArgumentException("--ws-max-size must be a positive number of bytes, got " + maxSize);
        }
        Checks.seconds("--ws-ping-interval", pingInterval);
        Checks.seconds("--ws-ping-timeout", pingTimeout);
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
        builder.maxSize = maxSize;
        builder.maxQueue = maxQueue;
        builder.pingInterval = pingInterval;
        builder.pingTimeout = pingTimeout;
        builder.perMessageDeflate = perMessageDeflate;
        return builder;
    }

    /** Builds a {@link WebSocketSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private boolean enabled = Defaults.WS;
        private int maxSize = Defaults.WS_MAX_SIZE;
        private int maxQueue = Defaults.WS_MAX_QUEUE;
        private double pingInterval = Defaults.WS_PING_INTERVAL;
        private double pingTimeout = Defaults.WS_PING_TIMEOUT;
        private boolean perMessageDeflate = Defaults.WS_PER_MESSAGE_DEFLATE;

        private Builder() {
        }

        /**
         * Take up WebSocket upgrades.
         * Off: upgrade requests go to the app as plain HTTP.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder enabled(boolean value) {
            this.enabled = value;
            return this;
        }

        /**
         * Largest message, in bytes.
         * A larger one closes the WebSocket with 1009.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder maxSize(int value) {
            this.maxSize = value;
            return this;
        }

        /**
         * Messages that may await the app.
         * Beyond it apx stops reading the socket until the app catches up.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder maxQueue(int value) {
            this.maxQueue = value;
            return this;
        }

        /**
         * Seconds between pings (0: none).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder pingInterval(double value) {
            this.pingInterval = value;
            return this;
        }

        /**
         * Pong deadline (0: none).
         * A WebSocket whose pong is later closes with 1011.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder pingTimeout(double value) {
            this.pingTimeout = value;
            return this;
        }

        /**
         * Compress messages (permessage-deflate).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder perMessageDeflate(boolean value) {
            this.perMessageDeflate = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public WebSocketSettings build() {
            return new WebSocketSettings(enabled, maxSize, maxQueue, pingInterval, pingTimeout, perMessageDeflate);
        }
    }
}
