package dev.apx.server;

import io.netty.channel.group.ChannelGroup;

import java.util.concurrent.atomic.AtomicInteger;

/** What every connection of one server shares. Thread-safe. {@code webSockets} is null when they are off. */
record ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight, WebSockets webSockets) {
}
