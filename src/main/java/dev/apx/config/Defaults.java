package dev.apx.config;

/**
 * Every setting's default, in one table: the command line's option defaults, the builders of
 * {@link ApxConfig}'s records and the settings reference (docs/settings.md) all read them from here.
 * A setting absent from this table has no default: it is off or unset until given.
 */
public final class Defaults {
    /** {@code app.appDir}: the working directory. */
    public static final String APP_DIR = ".";
    /** {@code app.rootPath}: no mount prefix. */
    public static final String ROOT_PATH = "";
    /** {@code app.proxyHeaders}: trust X-Forwarded-* from {@code app.forwardedAllowIps}. */
    public static final boolean PROXY_HEADERS = true;
    /** {@code app.forwardedAllowIps} when neither the setting nor {@code $FORWARDED_ALLOW_IPS} gives them. */
    public static final String FORWARDED_ALLOW_IPS = "127.0.0.1,::1";

    /** {@code bind.host}. */
    public static final String HOST = "127.0.0.1";
    /** {@code bind.port}. */
    public static final int PORT = 8000;
    /** {@code bind.backlog}. */
    public static final int BACKLOG = 2048;

    /** {@code http.http2}: HTTP/1.1 and HTTP/2. */
    public static final boolean HTTP2 = true;
    /** {@code http.h2MaxConcurrentStreams}. */
    public static final int H2_MAX_CONCURRENT_STREAMS = 100;
    /** {@code http.h2MaxHeaderListSize}, in bytes. */
    public static final int H2_MAX_HEADER_LIST_SIZE = 65536;
    /** {@code http.h2InitialWindowSize}, in bytes: the protocol's own default. */
    public static final int H2_INITIAL_WINDOW_SIZE = 65535;
    /** {@code http.h2MaxFrameSize}, in bytes: the protocol's own default. */
    public static final int H2_MAX_FRAME_SIZE = 16384;
    /** {@code http.serverHeader}. */
    public static final boolean SERVER_HEADER = true;
    /** {@code http.dateHeader}. */
    public static final boolean DATE_HEADER = true;

    /** {@code limits.requestLine}, in bytes. */
    public static final int LIMIT_REQUEST_LINE = 8192;
    /** {@code limits.requestFields}: gunicorn's. */
    public static final int LIMIT_REQUEST_FIELDS = 100;
    /** {@code limits.requestFieldSize}, in bytes: gunicorn's. */
    public static final int LIMIT_REQUEST_FIELD_SIZE = 8190;
    /** {@code limits.requestHeaders}, in bytes. */
    public static final int LIMIT_REQUEST_HEADERS = 16384;
    /** {@code limits.maxRequestsJitter}. */
    public static final int LIMIT_MAX_REQUESTS_JITTER = 0;
    /** {@code limits.keepAliveTimeout}, in seconds. */
    public static final int TIMEOUT_KEEP_ALIVE = 5;
    /** {@code limits.requestHeaderTimeout}, in seconds. */
    public static final int TIMEOUT_REQUEST_HEADER = 60;
    /** {@code limits.requestBodyTimeout}, in seconds. */
    public static final int TIMEOUT_REQUEST_BODY = 60;
    /** {@code limits.writeTimeout}, in seconds. */
    public static final int TIMEOUT_WRITE = 60;

    /** {@code tls.version}: Python's ssl.PROTOCOL_TLS_SERVER (TLS 1.2 and 1.3). */
    public static final int SSL_VERSION = 17;
    /** {@code tls.certReqs}: no client certificates. */
    public static final int SSL_CERT_REQS = 0;
    /** {@code tls.engine}. */
    public static final String SSL_ENGINE = "auto";

    /** {@code webSockets.enabled}. */
    public static final boolean WS = true;
    /** {@code webSockets.maxSize}, in bytes: Uvicorn's 16 MiB. */
    public static final int WS_MAX_SIZE = 16777216;
    /** {@code webSockets.maxQueue}: Uvicorn's. */
    public static final int WS_MAX_QUEUE = 32;
    /** {@code webSockets.pingInterval}, in seconds. */
    public static final double WS_PING_INTERVAL = 20.0;
    /** {@code webSockets.pingTimeout}, in seconds. */
    public static final double WS_PING_TIMEOUT = 20.0;
    /** {@code webSockets.perMessageDeflate}. */
    public static final boolean WS_PER_MESSAGE_DEFLATE = true;

    /** {@code runtime.interpreters}. */
    public static final int INTERPRETERS = 1;
    /** {@code runtime.loop}. */
    public static final LoopKind LOOP = LoopKind.AUTO;
    /** {@code runtime.io}. */
    public static final IoMode IO = IoMode.THREADS;
    /** {@code runtime.blockingThreads}: as Uvicorn's WSGI middleware and a2wsgi. */
    public static final int BLOCKING_THREADS = 10;
    /**
     * {@code runtime.gcThreshold}. The loop begins the requests queued by the I/O threads in one go,
     * ~60 tracked objects each that are live, not garbage: with CPython's 700 a collection every ~11
     * of them, 60 per 1,000 requests on the db row against Uvicorn's ~2, and the in-flight objects
     * they promote made full collections frequent
     * (docs/bridge.md, "Python's collector and the request waves").
     */
    public static final int GC_THRESHOLD = 10_000;
    /** {@code runtime.slowCallbackDuration}, in seconds. */
    public static final double SLOW_CALLBACK_DURATION = 0.5;

    /** {@code warmup.requests}. */
    public static final int WARMUP = 500;
    /** {@code warmup.mode}. */
    public static final WarmupMode WARMUP_MODE = WarmupMode.IDLE;

    /** {@code logging.level} when neither it nor a logging config file sets one. */
    public static final LogLevel LOG_LEVEL = LogLevel.INFO;
    /** {@code logging.accessLog}. */
    public static final boolean ACCESS_LOG = true;

    /** {@code metrics.host}. */
    public static final String METRICS_HOST = "127.0.0.1";
    /** {@code metrics.port}. */
    public static final int METRICS_PORT = 9090;

    /** {@code workers.reloadDelay}, in seconds. */
    public static final double RELOAD_DELAY = 0.25;
    /** {@code workers.healthcheckTimeout}, in seconds. */
    public static final int TIMEOUT_WORKER_HEALTHCHECK = 5;

    private Defaults() {
    }
}
