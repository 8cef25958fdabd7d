package dev.apx.server;

import dev.apx.server.api.AppInstance;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.api.IoHost;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.api.WebSockets;
import dev.apx.server.shared.CancelEvent;
import dev.apx.server.shared.FirstRequest;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.shared.ServerState;
import dev.apx.server.shared.ShutdownEvent;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Binds, serves and stops. {@link #start} returns once listening; {@link #stopAccepting},
 * {@link #drain} and {@link #close} are the graceful shutdown, in that order.
 */
public final class Server implements AutoCloseable {
    /** How long a graceful shutdown waits for the first request of a connection accepted just before it. */
    static final Duration FIRST_REQUEST_GRACE = Duration.ofSeconds(2);

    private final ServerState state;
    private final AppInstances instances;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel listener;
    private final Transport transport;
    private volatile long firstRequestDeadline; // System.nanoTime() value, set by stopAccepting

    private Server(ServerState state, AppInstances instances, EventLoopGroup boss, EventLoopGroup workers, Channel listener,
                   Transport transport) {
        this.state = state;
        this.instances = instances;
        this.boss = boss;
        this.workers = workers;
        this.listener = listener;
        this.transport = transport;
    }

    public static Server start(ServerConfig config, HttpApp app) {
        return start(config, app, null);
    }

    /** With {@code webSockets} (null: upgrade requests reach {@code app} as plain HTTP, as Uvicorn's {@code --ws none}). */
    public static Server start(ServerConfig config, HttpApp app, WebSockets webSockets) {
        return start(config, app, webSockets, null);
    }

    /**
     * With {@code host} (or null): every socket's I/O runs on the host's thread, the asyncio loop's,
     * so a request needs no hand-off between threads; else on Netty's own threads ({@code
     * config.workerThreads()} of them). Without the native epoll transport, Netty's threads.
     */
    public static Server start(ServerConfig config, HttpApp app, WebSockets webSockets, IoHost host) {
        return start(config, app, webSockets, host, null, HttpObserver.NONE);
    }

    /**
     * As {@link #start(ServerConfig, HttpApp, WebSockets, IoHost)}, serving on {@code inherited} (when
     * not null) instead of binding {@code config}'s address, and telling {@code observer} what
     * connections do (metrics).
     */
    public static Server start(ServerConfig config, HttpApp app, WebSockets webSockets, IoHost host, InheritedSocket inherited,
                               HttpObserver observer) {
        boolean ws = webSockets != null && webSockets.config().enabled();
        return start(config, List.of(new AppInstance(app, ws ? webSockets.app() : null)), ws ? webSockets.config() : null,
                host, inherited, observer);
    }

    /**
     * Serving several instances of the app (one per Python runtime), each connection given to one
     * of them ({@link AppInstances}); {@code webSocketConfig} null (or disabled): no WebSockets.
     * A {@code host} hosts the I/O of one instance's loop only, so it takes exactly one instance.
     */
    public static Server start(ServerConfig config, List<AppInstance> apps, WebSocketConfig webSocketConfig, IoHost host,
                               InheritedSocket inherited, HttpObserver observer) {
        if (host != null && apps.size() != 1) {
            throw new IllegalArgumentException("the I/O can be hosted on one app instance's loop only, not " + apps.size());
        }
        AppInstance first = apps.getFirst();
        WebSockets webSockets = webSocketConfig != null && webSocketConfig.enabled() && first.webSocket() != null
                ? new WebSockets(first.webSocket(), webSocketConfig) : null;
        Transport transport = Transport.best();
        EventLoopGroup boss;
        EventLoopGroup workers;
        if (host != null && transport.name().equals("epoll") && HostedEventLoop.available()) {
            boss = workers = HostedEventLoop.start(host);
        } else {
            boss = new MultiThreadIoEventLoopGroup(1, transport.ioHandlers());
            workers = new MultiThreadIoEventLoopGroup(config.workerThreads(), transport.ioHandlers());
        }
        ServerState state = new ServerState(config, first.http(), new DefaultChannelGroup(GlobalEventExecutor.INSTANCE),
                new AtomicInteger(), webSockets, observer);
        AppInstances instances = new AppInstances(state, apps);
        try {
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(boss, workers)
                    .option(ChannelOption.SO_BACKLOG, config.backlog())
                    .handler(new AcceptedConnections(state.connections()))
                    .childHandler(new ChannelSetup(instances::assign));
            Channel listener;
            if (inherited != null) {
                if (!inherited.unix()) {
                    bootstrap.childOption(ChannelOption.TCP_NODELAY, true);
                }
                io.netty.channel.ChannelFactory<ServerChannel> factory = inherited::channel;
                listener = bootstrap.channelFactory(factory).register().sync().channel();
            } else if (config.uds() != null) {
                if (transport.unix() == null) {
                    throw new IllegalStateException("--uds needs the native epoll transport, which is not available here");
                }
                Files.deleteIfExists(config.uds());
                listener = bootstrap.channel(transport.unix()).bind(new DomainSocketAddress(config.uds().toFile())).sync().channel();
            } else {
                bootstrap.childOption(ChannelOption.TCP_NODELAY, true).option(ChannelOption.SO_REUSEADDR, true);
                listener = bootstrap.channel(transport.tcp()).bind(config.host(), config.port()).sync().channel();
            }
            return new Server(state, instances, boss, workers, listener, transport);
        } catch (IOException e) {
            shutdown(boss, workers);
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            shutdown(boss, workers);
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (RuntimeException e) {
            shutdown(boss, workers);
            throw e;
        }
    }

    /** The TCP port bound (useful with port 0), or -1 on a Unix socket. */
    public int port() {
        return listener.localAddress() instanceof InetSocketAddress address ? address.getPort() : -1;
    }

    /** "epoll" or "nio". */
    public String transport() {
        return transport.name();
    }

    /** True when the I/O runs on the {@link IoHost}'s thread. */
    public boolean hosted() {
        return workers instanceof HostedEventLoop;
    }

    /** Requests whose response is not complete. */
    public int inFlight() {
        return state.inFlight().get();
    }

    /** Connections open now. */
    int openConnections() {
        return state.connections().size();
    }

    /** The threads that run the connections' I/O (for tests that need them busy). */
    EventLoopGroup ioThreads() {
        return workers;
    }

    /** Requests handed to the app so far. */
    public long requests() {
        return state.requests().get();
    }

    /** Completes when the {@code --limit-max-requests}th request arrives (never without the limit). */
    public java.util.concurrent.CompletionStage<Void> requestLimitReached() {
        return state.requestLimitReached();
    }

    /**
     * Closes the listening socket; idle connections close now, busy ones after their response, and
     * ones accepted moments ago after their first request ({@link FirstRequest}).
     */
    public void stopAccepting() {
        firstRequestDeadline = System.nanoTime() + Math.min(FIRST_REQUEST_GRACE.toNanos(),
                TimeUnit.SECONDS.toNanos(state.config().keepAliveTimeoutSeconds()));
        for (ServerState each : instances.states()) {
            each.stopping().set(true);
        }
        listener.close().syncUninterruptibly();
        // Every connection accepted so far is in the group, and its thread is assigned (the acceptor
        // runs before the close): an event fired now runs after its pipeline is set up.
        for (Channel channel : state.connections()) {
            channel.pipeline().fireUserEventTriggered(ShutdownEvent.INSTANCE);
        }
    }

    /** The app instances new connections go to. */
    public List<AppInstance> apps() {
        return instances.serving();
    }

    /** Open connections of each instance of {@link #apps()}, in its order. */
    public List<Integer> openConnectionsByApp() {
        return instances.openConnections();
    }

    /** One more app instance (a runtime that started after the first): new connections are spread over it too. */
    public void add(AppInstance instance) {
        instances.add(instance);
    }

    /**
     * Puts {@code fresh} in {@code old}'s place: new connections go to {@code fresh} from now on, and
     * {@code old}'s connections finish as at a graceful shutdown (idle ones close now, busy ones after
     * their response). The future completes when the last of them has closed; {@link #closeConnectionsOf}
     * ends the rest when waiting is over.
     */
    public CompletableFuture<Void> replace(AppInstance old, AppInstance fresh) {
        return instances.replace(old, fresh, state.connections());
    }

    /** Closes the connections still on a {@link #replace replaced} instance (its drain ran out of time). */
    public void closeConnectionsOf(AppInstance old) {
        instances.closeConnectionsOf(old, state.connections());
    }

    /** Cancels the apps of the requests in flight (after {@link #drain} timed out), as Uvicorn does. */
    public void cancelInFlight() {
        for (Channel channel : state.connections()) {
            channel.pipeline().fireUserEventTriggered(CancelEvent.INSTANCE);
        }
    }

    /**
     * Waits up to {@code timeout} for in-flight responses to complete, and up to {@link #FIRST_REQUEST_GRACE}
     * after {@link #stopAccepting} for connections that have not sent their first request; true if no response is left in flight.
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        // awaited() before inFlight(): a connection stops being awaited only after its request counts as in flight
        while ((System.nanoTime() - firstRequestDeadline < 0 && anyAwaited()) || inFlight() > 0) {
            if (System.nanoTime() > deadline) {
                return inFlight() == 0;
            }
            Thread.sleep(10);
        }
        return true;
    }

    private boolean anyAwaited() {
        for (Channel channel : state.connections()) {
            if (FirstRequest.awaited(channel)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        state.connections().close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        shutdown(boss, workers);
        if (state.config().uds() != null) {
            try {
                Files.deleteIfExists(state.config().uds());
            } catch (IOException ignored) {
                // best effort
            }
        }
    }

    private static void shutdown(EventLoopGroup boss, EventLoopGroup workers) {
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        // bounded: a hosted loop whose host has stopped running it would never terminate
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }
}
