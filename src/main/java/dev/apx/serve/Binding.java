package dev.apx.serve;

import dev.apx.asgi.LoopIoHost;
import dev.apx.asgi.lifespan.Lifespan;
import dev.apx.bridge.Bridge;
import dev.apx.config.ApxConfig;
import dev.apx.config.IoMode;
import dev.apx.config.WarmupMode;
import dev.apx.host.HostedApp;
import dev.apx.log.Log;
import dev.apx.metrics.Metrics;
import dev.apx.server.InheritedSocket;
import dev.apx.server.Server;
import dev.apx.server.api.AppInstance;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.api.IoHost;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.warmup.WarmupPace;
import dev.apx.supervisor.WorkerLink;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The first runtime's start and the bind: its lifespan startup, a warm-up before the port opens when
 * asked for, then the listening socket (bound here, or inherited from the supervisor or {@code fd}).
 */
final class Binding {
    private final ApxConfig config;
    private final ProcessRole role;
    private final Metrics metrics; // null without metrics

    Binding(ApxConfig config, ProcessRole role, Metrics metrics) {
        this.config = config;
        this.role = role;
        this.metrics = metrics;
    }

    /**
     * A started server, where the supervisor's health check is answered (the event loop: a blocked loop
     * does not answer), and the idle warm-up to start once every runtime serves (null: none).
     */
    record Served(Server server, Consumer<Runnable> onLoop, Consumer<WarmupPace> idleWarmup) {
    }

    /** The bind failed; it is logged. */
    static final class BindFailed extends Exception {
    }

    /** {@code hosted}: the runtimes serving at the time of each health check. */
    Served asgi(HostedApp first, ServerConfig server, WebSocketConfig ws, Supplier<List<HostedApp>> hosted)
            throws Lifespan.StartupFailed, InterruptedException, BindFailed {
        first.start(bridge -> {
            if (metrics != null) {
                metrics.watch(0, first.interpreter(), bridge); // slot 0: its series as interpreter="0"
            }
        });
        Bridge bridge = first.bridge();
        boolean loopIo = config.runtime().io() == IoMode.LOOP;
        // --io loop: the warm-up server's sockets would run on the same loop as the real one's, whose hooks are one set
        boolean before = config.warmup().mode() == WarmupMode.BEFORE || loopIo;
        int requests = config.warmup().requests();
        if (requests > 0 && before) {
            Warmup.asgi(first.interpreter(), bridge, server, ServeConfigs.asgi(config), ws, loopIo ? new LoopIoHost(bridge) : null,
                    requests, WarmupPace.ALWAYS);
        }
        Server bound = bind(server, List.of(first.instance()), ws, loopIo ? new LoopIoHost(bridge) : null);
        Consumer<WarmupPace> idleWarmup = requests > 0 && !before
                ? pace -> Warmup.asgi(first.interpreter(), bridge, server, ServeConfigs.asgi(config), ws, null, requests, pace)
                : null;
        return new Served(bound, task -> { // healthy when every runtime's loop answers: a blocked one fails the worker's check
            List<HostedApp> serving = hosted.get();
            AtomicInteger waiting = new AtomicInteger(serving.size());
            for (HostedApp app : serving) {
                app.bridge().runOnLoop(gil -> {
                    if (waiting.decrementAndGet() == 0) {
                        task.run();
                    }
                });
            }
        }, idleWarmup);
    }

    /**
     * WSGI: no event loop, no lifespan, no WebSockets (as Uvicorn's --interface wsgi); Netty's own
     * I/O threads whatever --io says, since there is no asyncio loop to host them.
     */
    Served wsgi(HostedApp first, ServerConfig server) throws BindFailed, Lifespan.StartupFailed, InterruptedException {
        boolean before = config.warmup().mode() == WarmupMode.BEFORE;
        int requests = config.warmup().requests();
        if (requests > 0 && before) {
            Warmup.wsgi(first.interpreter(), server, wsgiConfig(), requests, WarmupPace.ALWAYS);
        }
        first.start(bridge -> { });
        if (metrics != null) {
            metrics.watch(0, first.interpreter(), null); // slot 0: its GIL and GC series as interpreter="0"
        }
        Server bound = bind(server, List.of(first.instance()), null, null);
        Consumer<WarmupPace> idleWarmup = requests > 0 && !before
                ? pace -> Warmup.wsgi(first.interpreter(), server, wsgiConfig(), requests, pace)
                : null;
        return new Served(bound, Runnable::run, idleWarmup); // no loop to block: answer health checks at once
    }

    private dev.apx.wsgi.WsgiConfig wsgiConfig() {
        return ServeConfigs.wsgi(config, role.oneOfSeveralWorkers());
    }

    /** The OS's words for a failed bind ("Address already in use"), without Netty's wrapping. */
    static String bindError(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return message.replaceFirst("^\\w+\\(\\.\\.\\) failed(?: with error\\(-?\\d+\\))?: ", "");
    }

    /** Binds {@code server}'s address, or serves on the socket the supervisor or {@code fd} hands over. */
    private Server bind(ServerConfig server, List<AppInstance> apps, WebSocketConfig ws, IoHost host) throws BindFailed {
        WorkerLink link = role.workerLink();
        Integer fd = config.bind().fd();
        try {
            InheritedSocket inherited = link != null ? link.socket() : fd != null ? InheritedSocket.of(fd) : null;
            return Server.start(server, apps, ws, host, inherited, metrics != null ? metrics.http() : HttpObserver.NONE);
        } catch (RuntimeException e) {
            String where = fd != null ? "--fd " + fd : server.uds() != null ? server.uds().toString() : server.host() + ":" + server.port();
            Log.error("cannot " + (link != null ? "serve on the supervisor's socket" : "bind " + where) + ": " + bindError(e));
            throw new BindFailed();
        }
    }
}
