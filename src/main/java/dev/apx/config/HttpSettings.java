package dev.apx.config;

import java.util.List;

/**
 * HTTP/1.1 and HTTP/2, and the headers the server adds to responses.
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param http2 serve HTTP/2 as well as HTTP/1.1; default {@link Defaults#HTTP2}
 * @param h2cUpgrade take up 'Upgrade: h2c' (off: h2c smuggling); default false
 * @param h2MaxConcurrentStreams HTTP/2 streams open at once; default {@link Defaults#H2_MAX_CONCURRENT_STREAMS}
 * @param h2MaxHeaderListSize largest HTTP/2 header block; in bytes, default {@link Defaults#H2_MAX_HEADER_LIST_SIZE}
 * @param h2InitialWindowSize HTTP/2 stream's flow window; in bytes, default {@link Defaults#H2_INITIAL_WINDOW_SIZE}
 * @param h2MaxFrameSize largest HTTP/2 frame a client may send; in bytes, default {@link Defaults#H2_MAX_FRAME_SIZE}
 * @param serverHeader send 'server: apx'; default {@link Defaults#SERVER_HEADER}
 * @param dateHeader send 'date'; default {@link Defaults#DATE_HEADER}
 * @param headers add this header to responses (repeatable); empty by default
 */
public record HttpSettings(boolean http2, boolean h2cUpgrade, int h2MaxConcurrentStreams, int h2MaxHeaderListSize,
                           int h2InitialWindowSize, int h2MaxFrameSize, boolean serverHeader, boolean dateHeader,
                           List<String> headers) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public HttpSettings {
        if (h2MaxConcurrentStreams < 1) {
            throw new IllegalArgumentException("--h2-max-concurrent-streams must be at least 1, got " + h2MaxConcurrentStreams);
        }
        if (h2MaxHeaderListSize < 1024) {
            throw new IllegalArgumentException("--h2-max-header-list-size must be at least 1024, got " + h2MaxHeaderListSize);
        }
        if (h2InitialWindowSize < 1) { // the protocol's own bound is 2^31-1, an int's
            throw new IllegalArgumentException("--h2-initial-window-size must be at least 1, got " + h2InitialWindowSize);
        }
        if (h2MaxFrameSize < 16384 || h2MaxFrameSize > 16777215) {
            throw new IllegalArgumentException("--h2-max-frame-size must be between 16384 and 16777215 (RFC 9113), got " + h2MaxFrameSize);
        }
        if (h2cUpgrade && !http2) {
            throw new IllegalArgumentException("--h2c-upgrade conflicts with --http 1 (HTTP/1.1 only)");
        }
        headers = List.copyOf(headers);
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
        builder.http2 = http2;
        builder.h2cUpgrade = h2cUpgrade;
        builder.h2MaxConcurrentStreams = h2MaxConcurrentStreams;
        builder.h2MaxHeaderListSize = h2MaxHeaderListSize;
        builder.h2InitialWindowSize = h2InitialWindowSize;
        builder.h2MaxFrameSize = h2MaxFrameSize;
        builder.serverHeader = serverHeader;
        builder.dateHeader = dateHeader;
        builder.headers = headers;
        return builder;
    }

    /** Builds a {@link HttpSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private boolean http2 = Defaults.HTTP2;
        private boolean h2cUpgrade = false;
        private int h2MaxConcurrentStreams = Defaults.H2_MAX_CONCURRENT_STREAMS;
        private int h2MaxHeaderListSize = Defaults.H2_MAX_HEADER_LIST_SIZE;
        private int h2InitialWindowSize = Defaults.H2_INITIAL_WINDOW_SIZE;
        private int h2MaxFrameSize = Defaults.H2_MAX_FRAME_SIZE;
        private boolean serverHeader = Defaults.SERVER_HEADER;
        private boolean dateHeader = Defaults.DATE_HEADER;
        private List<String> headers = List.of();

        private Builder() {
        }

        /**
         * Serve HTTP/2 as well as HTTP/1.1.
         * HTTP/2 through ALPN on TLS, and with prior knowledge in cleartext; off: HTTP/1.1 only.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder http2(boolean value) {
            this.http2 = value;
            return this;
        }

        /**
         * Take up 'Upgrade: h2c' (off: h2c smuggling).
         * Off by default: a proxy that forwards the upgrade without understanding it lets clients smuggle
         * HTTP/2 requests past it. h2c with prior knowledge needs no flag.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder h2cUpgrade(boolean value) {
            this.h2cUpgrade = value;
            return this;
        }

        /**
         * HTTP/2 streams open at once.
         * Per connection; one more is refused.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder h2MaxConcurrentStreams(int value) {
            this.h2MaxConcurrentStreams = value;
            return this;
        }

        /**
         * Largest HTTP/2 header block.
         * Decoded size of a request's header block; a larger one ends the connection.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder h2MaxHeaderListSize(int value) {
            this.h2MaxHeaderListSize = value;
            return this;
        }

        /**
         * HTTP/2 stream's flow window.
         * Request body bytes a stream may send before the app reads them.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder h2InitialWindowSize(int value) {
            this.h2InitialWindowSize = value;
            return this;
        }

        /**
         * Largest HTTP/2 frame a client may send.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder h2MaxFrameSize(int value) {
            this.h2MaxFrameSize = value;
            return this;
        }

        /**
         * Send 'server: apx'.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder serverHeader(boolean value) {
            this.serverHeader = value;
            return this;
        }

        /**
         * Send 'date'.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder dateHeader(boolean value) {
            this.dateHeader = value;
            return this;
        }

        /**
         * Add this header to responses (repeatable).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder headers(List<String> value) {
            this.headers = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public HttpSettings build() {
            return new HttpSettings(http2, h2cUpgrade, h2MaxConcurrentStreams, h2MaxHeaderListSize, h2InitialWindowSize, h2MaxFrameSize, serverHeader, dateHeader, headers);
        }
    }
}
