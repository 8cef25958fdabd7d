package dev.apx.server;

import io.netty.channel.group.ChannelGroup;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every connection of one server shares. Thread-safe. {@code requestLimitReached} completes
 * when the {@code --limit-max-requests}th request arrives.
 */
record ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight,
                   AtomicLong requests, CompletableFuture<Void> requestLimitReached) {

    ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight) {
        this(config, app, connections, inFlight, new AtomicLong(), new CompletableFuture<>());
    }

    /** One more request handed to the app. */
    void countRequest() {
        long limit = config.limits().maxRequests();
        if (requests.incrementAndGet() == limit) {
            requestLimitReached.complete(null);
        }
    }
}
