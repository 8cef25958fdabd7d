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
 *
 * <p>With several app instances ({@link #serving}) each instance's connections have a state of their
 * own that shares everything but the app and the {@code stopping} flag, so one instance can be
 * drained and retired while the others go on.
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

    /** The state of the connections another app instance serves: this server's, with that app and a stopping flag of its own. */
    public ServerState serving(HttpApp otherApp, WebSockets otherWebSockets) {
        return new ServerState(config, otherApp, connections, inFlight, otherWebSockets, requests, requestLimitReached, observer,
                new AtomicBoolean(stopping.get()));
    }

    /** One more request handed to the app. */
    public void countRequest() {
        long limit = config.limits().maxRequests();
        if (requests.incrementAndGet() == limit) {
            requestLimitReached.complete(null);
        }
    }
}
