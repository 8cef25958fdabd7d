package dev.apx.server;

import dev.apx.server.api.AppInstance;
import dev.apx.server.api.WebSockets;
import dev.apx.server.shared.ServerState;
import dev.apx.server.shared.ShutdownEvent;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The app instances a server spreads its connections over (one per Python runtime with
 * {@code --interpreters N}). Each accepted connection goes to the instance with the fewest open
 * connections (ties in turn) and stays there: its keep-alive requests, its WebSocket and its HTTP/2 streams.
 *
 * <p>{@link #add} takes one more instance (a runtime that finished its start after the server
 * began serving with the first), which gets new connections from then on.
 *
 * <p>{@link #replace} puts a fresh instance in an old one's place (reload, recycling): new
 * connections go to the fresh one at once, the old one's connections are asked to finish (as at a
 * graceful shutdown: idle ones close now, busy ones after their response), and the returned future
 * completes when the last of them has closed, so the old instance can be torn down.
 *
 * <p>Threads: {@link #assign} runs on each new connection's event-loop thread; {@link #add} and {@link #replace} on
 * any thread. An instance is retired (its flag set) before its connections are told to finish, and a
 * connection counts itself on an instance before it checks that flag, so no connection can stay
 * unseen on a retired instance.
 */
final class AppInstances {
    private static final AttributeKey<Served> SERVED = AttributeKey.valueOf("apx.app-instance");

    private final ServerState base;
    private final List<Served> serving = new CopyOnWriteArrayList<>();
    private final List<Served> retiring = new CopyOnWriteArrayList<>();
    private final AtomicInteger turn = new AtomicInteger();

    AppInstances(ServerState base, List<AppInstance> instances) {
        if (instances.isEmpty()) {
            throw new IllegalArgumentException("a server needs at least one app instance");
        }
        this.base = base;
        for (AppInstance instance : instances) {
            serving.add(served(instance));
        }
    }

    /** The state the connection's handlers use: that of the instance it was given. */
    ServerState assign(Channel channel) {
        while (true) {
            Served chosen = null;
            int count = serving.size();
            int first = Math.floorMod(turn.getAndIncrement(), count); // ties go round: one client's sequential connections spread too
            for (int i = 0; i < count; i++) {
                Served candidate = serving.get((first + i) % count);
                if (chosen == null || candidate.open.get() < chosen.open.get()) {
                    chosen = candidate;
                }
            }
            channel.attr(SERVED).set(chosen);
            chosen.open.incrementAndGet();
            if (!chosen.retired) {
                Served on = chosen;
                channel.closeFuture().addListener(closed -> on.closed());
                return chosen.state;
            }
            chosen.closed(); // replaced meanwhile: take another
        }
    }

    /** {@code instance} serves from now on, beside the others. */
    void add(AppInstance instance) {
        serving.add(served(instance));
    }

    /**
     * {@code fresh} takes {@code old}'s place; the future completes when {@code old}'s last connection
     * has closed (at once when it has none). Fails when {@code old} is not serving.
     */
    CompletableFuture<Void> replace(AppInstance old, AppInstance fresh, Iterable<Channel> connections) {
        Served leaving = null;
        for (Served s : serving) {
            if (s.instance.equals(old)) {
                leaving = s;
            }
        }
        if (leaving == null) {
            throw new IllegalArgumentException("not an instance this server serves: " + old);
        }
        Served coming = served(fresh);
        serving.set(serving.indexOf(leaving), coming);
        retiring.add(leaving);
        leaving.retire();
        for (Channel channel : connections) {
            if (channel.attr(SERVED).get() == leaving) {
                channel.pipeline().fireUserEventTriggered(ShutdownEvent.INSTANCE);
            }
        }
        Served gone = leaving;
        leaving.drained.whenComplete((v, e) -> retiring.remove(gone));
        return leaving.drained;
    }

    /** Closes the connections still on {@code old} (a replaced instance whose drain ran out of time). */
    void closeConnectionsOf(AppInstance old, Iterable<Channel> connections) {
        for (Channel channel : connections) {
            Served served = channel.attr(SERVED).get();
            if (served != null && served.instance.equals(old) && served.retired) {
                channel.close();
            }
        }
    }

    /** The instances new connections go to, in order. */
    List<AppInstance> serving() {
        List<AppInstance> instances = new ArrayList<>();
        for (Served s : serving) {
            instances.add(s.instance);
        }
        return instances;
    }

    /** Open connections of each serving instance, in {@link #serving()}'s order. */
    List<Integer> openConnections() {
        List<Integer> open = new ArrayList<>();
        for (Served s : serving) {
            open.add(s.open.get());
        }
        return open;
    }

    /** Every state in use: the base one and each instance's, serving or retiring (a server-wide stop reaches them all). */
    List<ServerState> states() {
        List<ServerState> states = new ArrayList<>();
        states.add(base);
        for (Served s : serving) {
            states.add(s.state);
        }
        for (Served s : retiring) {
            states.add(s.state);
        }
        return states;
    }

    private Served served(AppInstance instance) {
        WebSockets webSockets = base.webSockets() == null || instance.webSocket() == null ? null
                : new WebSockets(instance.webSocket(), base.webSockets().config());
        return new Served(instance, base.serving(instance.http(), webSockets));
    }

    private static final class Served {
        final AppInstance instance;
        final ServerState state;
        final AtomicInteger open = new AtomicInteger();
        final CompletableFuture<Void> drained = new CompletableFuture<>();
        volatile boolean retired;

        Served(AppInstance instance, ServerState state) {
            this.instance = instance;
            this.state = state;
        }

        void retire() {
            retired = true;
            state.stopping().set(true); // a request that starts now is the last on its connection
            if (open.get() == 0) {
                drained.complete(null);
            }
        }

        void closed() {
            if (open.decrementAndGet() == 0 && retired) {
                drained.complete(null);
            }
        }
    }
}
