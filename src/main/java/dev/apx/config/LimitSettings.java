package dev.apx.config;

/**
 * What one client may ask of the server before it is refused or cut off, and how long the server waits
 * (docs/security.md).
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param concurrency 503 beyond this many requests in flight; 0: none, the default
 * @param requestLine 414 for a longer request line; in bytes, default {@link Defaults#LIMIT_REQUEST_LINE}
 * @param requestFields 431 for more header fields; default {@link Defaults#LIMIT_REQUEST_FIELDS}
 * @param requestFieldSize 431 for a longer header field; in bytes, default {@link Defaults#LIMIT_REQUEST_FIELD_SIZE}
 * @param requestHeaders 431 for a longer request head; in bytes, default {@link Defaults#LIMIT_REQUEST_HEADERS}
 * @param maxBody 413 for a longer request body; in bytes, 0: none, the default
 * @param maxRequests stop (gracefully) after this many requests; 0: none, the default
 * @param maxRequestsJitter add 0..N to --limit-max-requests; default {@link Defaults#LIMIT_MAX_REQUESTS_JITTER}
 * @param keepAliveTimeout close idle keep-alive connections; in seconds, default {@link Defaults#TIMEOUT_KEEP_ALIVE}
 * @param requestHeaderTimeout deadline for a request's head; in seconds, default {@link Defaults#TIMEOUT_REQUEST_HEADER}
 * @param requestBodyTimeout deadline between two bytes of a request body; in seconds, default {@link Defaults#TIMEOUT_REQUEST_BODY}
 * @param writeTimeout close when a client stops reading; in seconds, default {@link Defaults#TIMEOUT_WRITE}
 * @param gracefulShutdownTimeout on shutdown, cancel requests after this; in seconds, null: none, the default
 */
public record LimitSettings(int concurrency, int requestLine, int requestFields, int requestFieldSize,
                            int requestHeaders, long maxBody, long maxRequests, int maxRequestsJitter,
                            int keepAliveTimeout, int requestHeaderTimeout, int requestBodyTimeout, int writeTimeout,
                            Integer gracefulShutdownTimeout) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public LimitSettings {
        Checks.atLeast("--limit-request-line", requestLine, 1);
        Checks.atLeast("--limit-request-headers", requestHeaders, 1);
        Checks.positive("--limit-request-fields", requestFields);
        Checks.positive("--limit-request-field-size", requestFieldSize);
        Checks.positive("--timeout-request-header", requestHeaderTimeout);
        Checks.positive("--timeout-request-body", requestBodyTimeout);
        Checks.positive("--timeout-write", writeTimeout);
        if (maxBody < 0) {
            throw new IllegalArgumentException("--limit-max-body must be 0 (no limit) or more, got " + maxBody);
        }
        if (maxRequests < 0) {
            throw new IllegalArgumentException("--limit-max-requests must be 0 (no limit) or more, got " + maxRequests);
        }
        Checks.atLeast("--limit-max-requests-jitter", maxRequestsJitter, 0);
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
        builder.concurrency = concurrency;
        builder.requestLine = requestLine;
        builder.requestFields = requestFields;
        builder.requestFieldSize = requestFieldSize;
        builder.requestHeaders = requestHeaders;
        builder.maxBody = maxBody;
        builder.maxRequests = maxRequests;
        builder.maxRequestsJitter = maxRequestsJitter;
        builder.keepAliveTimeout = keepAliveTimeout;
        builder.requestHeaderTimeout = requestHeaderTimeout;
        builder.requestBodyTimeout = requestBodyTimeout;
        builder.writeTimeout = writeTimeout;
        builder.gracefulShutdownTimeout = gracefulShutdownTimeout;
        return builder;
    }

    /** Builds a {@link LimitSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private int concurrency = 0;
        private int requestLine = Defaults.LIMIT_REQUEST_LINE;
        private int requestFields = Defaults.LIMIT_REQUEST_FIELDS;
        private int requestFieldSize = Defaults.LIMIT_REQUEST_FIELD_SIZE;
        private int requestHeaders = Defaults.LIMIT_REQUEST_HEADERS;
        private long maxBody = 0;
        private long maxRequests = 0;
        private int maxRequestsJitter = Defaults.LIMIT_MAX_REQUESTS_JITTER;
        private int keepAliveTimeout = Defaults.TIMEOUT_KEEP_ALIVE;
        private int requestHeaderTimeout = Defaults.TIMEOUT_REQUEST_HEADER;
        private int requestBodyTimeout = Defaults.TIMEOUT_REQUEST_BODY;
        private int writeTimeout = Defaults.TIMEOUT_WRITE;
        private Integer gracefulShutdownTimeout = null;

        private Builder() {
        }

        /**
         * 503 beyond this many requests in flight.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder concurrency(int value) {
            this.concurrency = value;
            return this;
        }

        /**
         * 414 for a longer request line.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder requestLine(int value) {
            this.requestLine = value;
            return this;
        }

        /**
         * 431 for more header fields.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder requestFields(int value) {
            this.requestFields = value;
            return this;
        }

        /**
         * 431 for a longer header field.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder requestFieldSize(int value) {
            this.requestFieldSize = value;
            return this;
        }

        /**
         * 431 for a longer request head.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder requestHeaders(int value) {
            this.requestHeaders = value;
            return this;
        }

        /**
         * 413 for a longer request body.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder maxBody(long value) {
            this.maxBody = value;
            return this;
        }

        /**
         * Stop (gracefully) after this many requests.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder maxRequests(long value) {
            this.maxRequests = value;
            return this;
        }

        /**
         * Add 0..N to --limit-max-requests.
         * A random 0..N per worker, so that workers are not all replaced at once.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder maxRequestsJitter(int value) {
            this.maxRequestsJitter = value;
            return this;
        }

        /**
         * Close idle keep-alive connections.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder keepAliveTimeout(int value) {
            this.keepAliveTimeout = value;
            return this;
        }

        /**
         * Deadline for a request's head.
         * A connection whose request head is still incomplete after this long is closed.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder requestHeaderTimeout(int value) {
            this.requestHeaderTimeout = value;
            return this;
        }

        /**
         * Deadline between two bytes of a request body.
         * When a request body the server waits for brings no byte for this long, the client gets a 408 and the
         * connection is closed.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder requestBodyTimeout(int value) {
            this.requestBodyTimeout = value;
            return this;
        }

        /**
         * Close when a client stops reading.
         * A connection whose client has read nothing of a waiting response for this long is closed.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder writeTimeout(int value) {
            this.writeTimeout = value;
            return this;
        }

        /**
         * On shutdown, cancel requests after this.
         * Requests still running then get CancelledError; lifespan shutdown runs after them.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder gracefulShutdownTimeout(Integer value) {
            this.gracefulShutdownTimeout = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public LimitSettings build() {
            return new LimitSettings(concurrency, requestLine, requestFields, requestFieldSize, requestHeaders, maxBody, maxRequests, maxRequestsJitter, keepAliveTimeout, requestHeaderTimeout, requestBodyTimeout, writeTimeout, gracefulShutdownTimeout);
        }
    }
}
