package dev.apx.server;

import io.netty.channel.group.ChannelGroup;

import java.util.concurrent.atomic.AtomicInteger;

/** What every connection of one server shares. Thread-safe. */
record ServerState(ServerConfig config, HttpApp app, ChannelGroup connections, AtomicInteger inFlight) {
}
