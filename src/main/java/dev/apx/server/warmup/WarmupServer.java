package dev.apx.server.warmup;

import dev.apx.server.Server;

import dev.apx.server.shared.Limits;

import dev.apx.server.api.IoHost;

import dev.apx.server.api.WebSockets;

import dev.apx.server.api.HttpApp;

import dev.apx.server.shared.ServerConfig;

import java.time.Duration;

/**
 * Runs requests through a real server to {@code app} (apx's built-in app, never the user's), before
 * the real port opens or while it is idle ({@link WhileIdle}), so that clients meet compiled code: a
 * server of its own with the real one's protocols, TLS and I/O mode, bound to an ephemeral port of
 * 127.0.0.1 and closed before this returns, and a client over loopback TCP ({@link WarmupClient}) that takes every path a real
 * workload takes: the epoll transport's accept, read, write and close, keep-alive and connections
 * closed by either side, streamed and large responses, request bodies (with a length and chunked),
 * h2 (prior knowledge, or ALPN with TLS), TLS handshakes, WebSockets. A warm-up on an in-VM channel
 * never runs the epoll classes, and the first rounds of real load would then deoptimise C2's code
 * for them (docs/startup.md, "Warm-up"). No access log, no request count or metrics of the
 * real server, no {@code --limit-*} of the user's.
 */
public final class WarmupServer {
    private WarmupServer() {
    }

    /** What a warm-up did: requests (and WebSocket messages) answered, by protocol, and the connections it opened. */
    public record Result(int answered, int http1, int h2, int webSocket, int connections, int port) {
        @Override
        public String toString() {
            return answered + " (http/1.1 " + http1 + ", h2 " + h2 + ", websocket " + webSocket + "; " + connections
                    + " connections to 127.0.0.1:" + port + ")";
        }
    }

    /**
     * Sends about {@code requests} requests to {@code app} (and WebSocket messages to {@code webSockets}'s app, when not
     * null) through a server like the one {@code config}, {@code webSockets} and {@code host} describe, at {@code pace};
     * stops after {@code timeout}. Returns once the warm-up server is closed.
     */
    public static Result run(ServerConfig config, HttpApp app, WebSockets webSockets, IoHost host, int requests, WarmupPace pace,
                             Duration timeout) throws InterruptedException {
        ServerConfig quiet = config.withAddress("127.0.0.1", 0).withAccessLog(false).withLimitConcurrency(0)
                .withLimits(Limits.defaults());
        Server server = Server.start(quiet, app, webSockets, host);
        try {
            boolean ws = webSockets != null && webSockets.config().enabled();
            return WarmupClient.run(server.port(), quiet.protocols(), ws, requests, pace, timeout);
        } finally {
            server.stopAccepting();
            server.drain(Duration.ofSeconds(2));
            server.close();
        }
    }
}
