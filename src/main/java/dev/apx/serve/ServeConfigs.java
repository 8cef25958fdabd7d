package dev.apx.serve;

import dev.apx.app.AppConfig;
import dev.apx.app.TrustedHosts;
import dev.apx.asgi.AsgiConfig;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.StartMode;
import dev.apx.config.AppSettings;
import dev.apx.config.ApxConfig;
import dev.apx.config.Defaults;
import dev.apx.config.HttpSettings;
import dev.apx.config.IoMode;
import dev.apx.config.LimitSettings;
import dev.apx.config.LogLevel;
import dev.apx.config.MetricsSettings;
import dev.apx.config.TlsSettings;
import dev.apx.config.WebSocketSettings;
import dev.apx.host.AppSpec;
import dev.apx.log.Log;
import dev.apx.metrics.MetricsConfig;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.shared.Http2Config;
import dev.apx.server.shared.Limits;
import dev.apx.server.shared.Protocols;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.tls.TlsConfig;
import dev.apx.server.tls.TlsContext;
import dev.apx.wsgi.WsgiConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/** {@link ApxConfig} onto the settings of the layers that serve: the server's, the bridge's, the app's. */
public final class ServeConfigs {
    /** Set by the supervisor of {@code --workers} in each worker's environment: the worker label of its series. */
    static final String WORKER_ID_ENV = "APX_WORKER_ID";

    private ServeConfigs() {
    }

    /**
     * How the server listens and speaks HTTP. {@code inherited}: the socket comes from the supervisor or
     * {@code fd}, so no Unix socket path is bound (nor deleted).
     */
    static ServerConfig server(ApxConfig config, boolean inherited, Protocols protocols) {
        LimitSettings limits = config.limits();
        HttpSettings http = config.http();
        return ServerConfig.builder()
                .host(config.bind().host()).port(config.bind().port()).uds(inherited ? null : config.bind().uds())
                .backlog(config.bind().backlog()).keepAliveTimeoutSeconds(limits.keepAliveTimeout())
                .limitConcurrency(Math.max(0, limits.concurrency())).serverHeader(http.serverHeader()).dateHeader(http.dateHeader())
                .maxInitialLineLength(limits.requestLine()).maxHeaderSize(limits.requestHeaders())
                .accessLog(config.logging().accessLog())
                .limits(new Limits(limits.requestFields(), limits.requestFieldSize(), limits.maxBody(), limits.requestHeaderTimeout(),
                        limits.requestBodyTimeout(), limits.writeTimeout(), maxRequests(limits)))
                .protocols(protocols)
                .build();
    }

    /** The request limit of this process: {@code maxRequests} plus a random 0..jitter, as Uvicorn draws it; 0: none. */
    static long maxRequests(LimitSettings limits) {
        if (limits.maxRequests() == 0) {
            return 0;
        }
        return limits.maxRequests() + ThreadLocalRandom.current().nextInt(limits.maxRequestsJitter() + 1);
    }

    /**
     * The WebSocket settings the server takes.
     *
     * @param ws the configured ones
     * @return the server's
     */
    public static WebSocketConfig webSockets(WebSocketSettings ws) {
        return new WebSocketConfig(ws.enabled(), ws.maxSize(), seconds(ws.pingInterval()), seconds(ws.pingTimeout()),
                ws.perMessageDeflate(), ws.maxQueue());
    }

    private static Duration seconds(double value) {
        return Duration.ofNanos((long) (value * 1e9));
    }

    /** HTTP/2's settings and TLS, whose files are loaded here: a bad file or password fails before anything listens. */
    static Protocols protocols(ApxConfig config) {
        HttpSettings http = config.http();
        Http2Config http2 = new Http2Config(http.http2(), http.h2MaxConcurrentStreams(), http.h2MaxHeaderListSize(),
                http.h2InitialWindowSize(), http.h2MaxFrameSize(), http.h2cUpgrade());
        TlsSettings tls = config.tls();
        TlsContext context = null;
        if (tls.certFile() != null || tls.keyFile() != null) {
            context = TlsContext.load(new TlsConfig(tls.certFile(), tls.keyFile(), tls.keyFilePassword(), tls.caCerts(), tls.certReqs(),
                    tls.ciphers(), tls.version(), tls.engine()), http.http2());
        }
        return new Protocols(context, http2);
    }

    /**
     * Where metrics are served; a worker (its supervisor set {@value #WORKER_ID_ENV}) serves its own series
     * on 127.0.0.1, any free port, for the supervisor to scrape: the configured address is the supervisor's.
     *
     * @param metrics the configured settings
     * @param env     the process's environment
     * @return the endpoint's settings, or null without metrics
     */
    public static MetricsConfig metrics(MetricsSettings metrics, Map<String, String> env) {
        if (!metrics.enabled()) {
            return null;
        }
        String worker = env.get(WORKER_ID_ENV);
        return worker != null && !worker.isBlank() ? new MetricsConfig("127.0.0.1", 0, worker)
                : new MetricsConfig(metrics.host(), metrics.port(), null);
    }

    static AppConfig app(AppSettings app) {
        String ips = app.forwardedAllowIps() != null ? app.forwardedAllowIps()
                : System.getenv().getOrDefault("FORWARDED_ALLOW_IPS", Defaults.FORWARDED_ALLOW_IPS);
        return new AppConfig(app.rootPath(), app.proxyHeaders(), TrustedHosts.parse(ips));
    }

    static AsgiConfig asgi(ApxConfig config) {
        return new AsgiConfig(app(config.app()), config.app().resetContextvars());
    }

    /** {@code multiprocess}: this process is one of several {@code --workers} ({@code wsgi.multiprocess}). */
    static WsgiConfig wsgi(ApxConfig config, boolean multiprocess) {
        return new WsgiConfig(app(config.app()), config.runtime().blockingThreads(), slowMillis(config), multiprocess);
    }

    private static long slowMillis(ApxConfig config) {
        return Math.round(config.runtime().slowCallbackDuration() * 1000);
    }

    /** What each runtime loads: the app, the env file's variables, the bridge's and the protocols' settings. */
    static AppSpec appSpec(ApxConfig config, boolean multiprocess) {
        Map<String, String> env = Map.of();
        if (config.app().envFile() != null) {
            try {
                env = EnvFile.read(config.app().envFile());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read --env-file " + config.app().envFile(), e);
            }
        }
        BridgeConfig bridge = BridgeConfig.defaults().withLoop(config.runtime().loop()).withSlowDriveMillis(slowMillis(config))
                .withGcThreshold(config.runtime().gcThreshold());
        if (config.runtime().io() == IoMode.LOOP) {
            bridge = bridge.withStartMode(StartMode.LOOP); // requests arrive on the loop thread: no step lock
        }
        return new AppSpec(config.app().spec(), config.app().appDir(), config.app().factory(), config.app().appInterface(),
                config.app().lifespan(), env, bridge, asgi(config), wsgi(config, multiprocess));
    }

    static Log.Level logLevel(LogLevel level) {
        return Log.Level.valueOf(level.name());
    }
}
