package dev.apx.server.shared;

import dev.apx.server.api.HttpApp;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.api.WebSockets;

import io.netty.channel.group.ChannelGroup;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every connection of one server shares. Thread-safe. {@code webSockets} is null when they are
 * off. {@code requestLimitReached} completes when the {@code --limit-max-requests}th request arrives.
 * {@code observer} is {@link HttpObserver#NONE} unless metrics are on. {@code stopping} turns true
 * when the server stops accepting: a request that starts after it is the last on its connection.
 */
public record ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight, WebSockets webSockets,
                   AtomicLong requests, CompletableFuture<Void> requestLimitReached, HttpObserver observer, AtomicBoolean stopping) {

    public ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight, WebSockets webSockets,
                HttpObserver observer) {
        this(config, app, connections, inFlight, webSockets, new AtomicLong(), new CompletableFuture<>(), observer, new AtomicBoolean());
    }

    public ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight, WebSockets webSockets) {
        this(config, app, connections, inFlight, webSockets, HttpObserver.NONE);
    }

    public ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight) {
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
