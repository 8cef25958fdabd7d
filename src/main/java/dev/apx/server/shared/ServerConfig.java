package dev.apx.server.shared;

import dev.apx.config.Defaults;

import java.nio.file.Path;

/**
 * How the server listens and speaks HTTP; made with {@link #builder()}, whose defaults are
 * {@link Defaults}' (the command line's).
 *
 * @param uds                   a Unix socket path instead of host/port, or null
 * @param keepAliveTimeoutSeconds an idle keep-alive connection is closed after this
 * @param limitConcurrency      answer 503 beyond this many requests in flight (0: no limit)
 * @param maxInitialLineLength  414 beyond this request line length
 * @param maxHeaderSize         431 beyond this header block size
 * @param accessLog             log one line per response
 * @param workerThreads         Netty's I/O threads
 * @param limits                header, body, timeout and request-count limits (see {@link Limits})
 * @param protocols             TLS and HTTP/2 (see {@link Protocols})
 */
public record ServerConfig(String host, int port, Path uds, int backlog, int keepAliveTimeoutSeconds, int limitConcurrency, boolean serverHeader, boolean dateHeader, int maxInitialLineLength, int maxHeaderSize, boolean accessLog, int workerThreads, Limits limits, Protocols protocols) {

    public static ServerConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.host = host;
        builder.port = port;
        builder.uds = uds;
        builder.backlog = backlog;
        builder.keepAliveTimeoutSeconds = keepAliveTimeoutSeconds;
        builder.limitConcurrency = limitConcurrency;
        builder.serverHeader = serverHeader;
        builder.dateHeader = dateHeader;
        builder.maxInitialLineLength = maxInitialLineLength;
        builder.maxHeaderSize = maxHeaderSize;
        builder.accessLog = accessLog;
        builder.workerThreads = workerThreads;
        builder.limits = limits;
        builder.protocols = protocols;
        return builder;
    }

    public ServerConfig withLimits(Limits newLimits) {
        return toBuilder().limits(newLimits).build();
    }

    public ServerConfig withBacklog(int newBacklog) {
        return toBuilder().backlog(newBacklog).build();
    }

    public ServerConfig withPort(int newPort) {
        return toBuilder().port(newPort).build();
    }

    /** Listening on {@code newHost}:{@code newPort} (TCP, never a Unix socket). */
    public ServerConfig withAddress(String newHost, int newPort) {
        return toBuilder().host(newHost).port(newPort).uds(null).build();
    }

    public ServerConfig withAccessLog(boolean enabled) {
        return toBuilder().accessLog(enabled).build();
    }

    public ServerConfig withLimitConcurrency(int limit) {
        return toBuilder().limitConcurrency(limit).build();
    }

    public ServerConfig withProtocols(Protocols newProtocols) {
        return toBuilder().protocols(newProtocols).build();
    }

    /** A {@link ServerConfig} field by field, starting from the defaults. */
    public static final class Builder {
        private String host = Defaults.HOST;
        private int port = Defaults.PORT;
        private Path uds = null;
        private int backlog = Defaults.BACKLOG;
        private int keepAliveTimeoutSeconds = Defaults.TIMEOUT_KEEP_ALIVE;
        private int limitConcurrency = 0;
        private boolean serverHeader = Defaults.SERVER_HEADER;
        private boolean dateHeader = Defaults.DATE_HEADER;
        private int maxInitialLineLength = Defaults.LIMIT_REQUEST_LINE;
        private int maxHeaderSize = Defaults.LIMIT_REQUEST_HEADERS;
        private boolean accessLog = Defaults.ACCESS_LOG;
        private int workerThreads = Math.max(1, Runtime.getRuntime().availableProcessors());
        private Limits limits = Limits.defaults();
        private Protocols protocols = Protocols.defaults();

        private Builder() {
        }

        public Builder host(String value) {
            host = value;
            return this;
        }

        public Builder port(int value) {
            port = value;
            return this;
        }

        public Builder uds(Path value) {
            uds = value;
            return this;
        }

        public Builder backlog(int value) {
            backlog = value;
            return this;
        }

        public Builder keepAliveTimeoutSeconds(int value) {
            keepAliveTimeoutSeconds = value;
            return this;
        }

        public Builder limitConcurrency(int value) {
            limitConcurrency = value;
            return this;
        }

        public Builder serverHeader(boolean value) {
            serverHeader = value;
            return this;
        }

        public Builder dateHeader(boolean value) {
            dateHeader = value;
            return this;
        }

        public Builder maxInitialLineLength(int value) {
            maxInitialLineLength = value;
            return this;
        }

        public Builder maxHeaderSize(int value) {
            maxHeaderSize = value;
            return this;
        }

        public Builder accessLog(boolean value) {
            accessLog = value;
            return this;
        }

        public Builder workerThreads(int value) {
            workerThreads = value;
            return this;
        }

        public Builder limits(Limits value) {
            limits = value;
            return this;
        }

        public Builder protocols(Protocols value) {
            protocols = value;
            return this;
        }

        public ServerConfig build() {
            return new ServerConfig(host, port, uds, backlog, keepAliveTimeoutSeconds, limitConcurrency, serverHeader, dateHeader, maxInitialLineLength, maxHeaderSize, accessLog, workerThreads, limits, protocols);
        }
    }
}
