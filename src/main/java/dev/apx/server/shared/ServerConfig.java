package dev.apx.server.shared;

import java.nio.file.Path;

/**
 * How the server listens and speaks HTTP.
 *
 * @param uds                   a Unix socket path instead of host/port, or null
 * @param keepAliveTimeoutSeconds an idle keep-alive connection is closed after this
 * @param limitConcurrency      answer 503 beyond this many requests in flight (0: no limit)
 * @param maxInitialLineLength  414 beyond this request line length
 * @param maxHeaderSize         431 beyond this header block size
 * @param accessLog             log one line per response
 * @param limits                header, body, timeout and request-count limits (see {@link Limits})
 * @param protocols             TLS and HTTP/2 (see {@link Protocols})
 */
public record ServerConfig(String host, int port, Path uds, int backlog, int keepAliveTimeoutSeconds,
                           int limitConcurrency, boolean serverHeader, boolean dateHeader,
                           int maxInitialLineLength, int maxHeaderSize, boolean accessLog, int workerThreads,
                           Limits limits, Protocols protocols) {

    /** Cleartext, with the default {@link Protocols}. */
    public ServerConfig(String host, int port, Path uds, int backlog, int keepAliveTimeoutSeconds,
                        int limitConcurrency, boolean serverHeader, boolean dateHeader,
                        int maxInitialLineLength, int maxHeaderSize, boolean accessLog, int workerThreads, Limits limits) {
        this(host, port, uds, backlog, keepAliveTimeoutSeconds, limitConcurrency, serverHeader, dateHeader,
                maxInitialLineLength, maxHeaderSize, accessLog, workerThreads, limits, Protocols.defaults());
    }

    /** With the default {@link Limits}. */
    public ServerConfig(String host, int port, Path uds, int backlog, int keepAliveTimeoutSeconds,
                        int limitConcurrency, boolean serverHeader, boolean dateHeader,
                        int maxInitialLineLength, int maxHeaderSize, boolean accessLog, int workerThreads) {
        this(host, port, uds, backlog, keepAliveTimeoutSeconds, limitConcurrency, serverHeader, dateHeader,
                maxInitialLineLength, maxHeaderSize, accessLog, workerThreads, Limits.defaults());
    }

    public static ServerConfig defaults() {
        return new ServerConfig("127.0.0.1", 8000, null, 2048, 5, 0, true, true, 8192, 16384, true,
                Math.max(1, Runtime.getRuntime().availableProcessors()));
    }

    public ServerConfig withLimits(Limits newLimits) {
        return new ServerConfig(host, port, uds, backlog, keepAliveTimeoutSeconds, limitConcurrency, serverHeader,
                dateHeader, maxInitialLineLength, maxHeaderSize, accessLog, workerThreads, newLimits, protocols);
    }

    public ServerConfig withBacklog(int newBacklog) {
        return new ServerConfig(host, port, uds, newBacklog, keepAliveTimeoutSeconds, limitConcurrency, serverHeader,
                dateHeader, maxInitialLineLength, maxHeaderSize, accessLog, workerThreads, limits, protocols);
    }

    public ServerConfig withPort(int newPort) {
        return new ServerConfig(host, newPort, uds, backlog, keepAliveTimeoutSeconds, limitConcurrency, serverHeader,
                dateHeader, maxInitialLineLength, maxHeaderSize, accessLog, workerThreads, limits, protocols);
    }

    /** Listening on {@code newHost}:{@code newPort} (TCP, never a Unix socket). */
    public ServerConfig withAddress(String newHost, int newPort) {
        return new ServerConfig(newHost, newPort, null, backlog, keepAliveTimeoutSeconds, limitConcurrency, serverHeader,
                dateHeader, maxInitialLineLength, maxHeaderSize, accessLog, workerThreads, limits, protocols);
    }

    public ServerConfig withAccessLog(boolean enabled) {
        return new ServerConfig(host, port, uds, backlog, keepAliveTimeoutSeconds, limitConcurrency, serverHeader,
                dateHeader, maxInitialLineLength, maxHeaderSize, enabled, workerThreads, limits, protocols);
    }

    public ServerConfig withLimitConcurrency(int limit) {
        return new ServerConfig(host, port, uds, backlog, keepAliveTimeoutSeconds, limit, serverHeader,
                dateHeader, maxInitialLineLength, maxHeaderSize, accessLog, workerThreads, limits, protocols);
    }

    public ServerConfig withProtocols(Protocols newProtocols) {
        return new ServerConfig(host, port, uds, backlog, keepAliveTimeoutSeconds, limitConcurrency, serverHeader,
                dateHeader, maxInitialLineLength, maxHeaderSize, accessLog, workerThreads, limits, newProtocols);
    }
}
