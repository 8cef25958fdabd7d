package dev.apx.server;

import io.netty.channel.group.ChannelGroup;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every connection of one server shares. Thread-safe. {@code webSockets} is null when they are
 * off. {@code requestLimitReached} completes when the {@code --limit-max-requests}th request arrives.
 */
public record ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight, WebSockets webSockets,
                   AtomicLong requests, CompletableFuture<Void> requestLimitReached) {

    ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight, WebSockets webSockets) {
        this(config, app, connections, inFlight, webSockets, new AtomicLong(), new CompletableFuture<>());
    }

    ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight) {
        this(config, app, connections, inFlight, null);
    }

    /** One more request handed to the app. */
    public void countRequest() {
        long limit = config.limits().maxRequests();
        if (requests.incrementAndGet() == limit) {
            requestLimitReached.complete(null);
        }
    }
}
