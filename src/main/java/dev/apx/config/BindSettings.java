package dev.apx.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the server listens: a TCP host and port, a Unix socket, or an inherited file descriptor.
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param host bind socket to this host; default {@link Defaults#HOST}
 * @param port bind to this port (0: any free); default {@link Defaults#PORT}
 * @param uds bind to a Unix domain socket; null: unset, the default
 * @param fd serve on the listening socket of this fd; null: unset, the default
 * @param backlog maximum pending connections; default {@link Defaults#BACKLOG}
 */
public record BindSettings(String host, int port, Path uds, Integer fd, int backlog) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public BindSettings {
        Objects.requireNonNull(host, "host");
        Checks.atLeast("--backlog", backlog, 1);
        if (fd != null) {
            Checks.atLeast("--fd", fd, 0);
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
        builder.host = host;
        builder.port = port;
        builder.uds = uds;
        builder.fd = fd;
        builder.backlog = backlog;
        return builder;
    }

    /** Builds a {@link BindSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private String host = Defaults.HOST;
        private int port = Defaults.PORT;
        private Path uds = null;
        private Integer fd = null;
        private int backlog = Defaults.BACKLOG;

        private Builder() {
        }

        /**
         * Bind socket to this host.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder host(String value) {
            this.host = value;
            return this;
        }

        /**
         * Bind to this port (0: any free).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder port(int value) {
            this.port = value;
            return this;
        }

        /**
         * Bind to a Unix domain socket.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder uds(Path value) {
            this.uds = value;
            return this;
        }

        /**
         * Serve on the listening socket of this fd.
         * A socket from systemd or a parent process.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder fd(Integer value) {
            this.fd = value;
            return this;
        }

        /**
         * Maximum pending connections.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder backlog(int value) {
            this.backlog = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public BindSettings build() {
            return new BindSettings(host, port, uds, fd, backlog);
        }
    }
}
