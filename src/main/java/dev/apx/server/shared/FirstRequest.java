package dev.apx.server.shared;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * Whether a connection has started a request yet. A graceful shutdown closes idle keep-alive
 * connections at once (their clients resend, as for any keep-alive close), but a connection
 * accepted moments before has its first request on the wire: closing it would fail a request
 * that was never refused, so {@code Server.drain} gives such connections a short grace.
 */
public final class FirstRequest {
    private static final AttributeKey<Boolean> STARTED = AttributeKey.valueOf("apx.firstRequestStarted");

    private FirstRequest() {
    }

    /** Called on the channel's event loop once its first request (or HTTP/2 session) starts. */
    public static void started(Channel channel) {
        channel.attr(STARTED).set(Boolean.TRUE);
    }

    /** True while an open connection has not started a request. */
    public static boolean awaited(Channel channel) {
        return channel.isActive() && channel.attr(STARTED).get() == null;
    }
}
