package dev.apx.config;

import java.util.List;

/**
 * Every setting of {@link ApxConfig}: its record, name, type, default and meaning. The command
 * line's {@code --help} and the settings reference (docs/settings.md) are written from this table;
 * the defaults are {@link Defaults}'.
 */
public final class Settings {
    /**
     * One of {@link ApxConfig}'s records.
     *
     * @param record the {@link ApxConfig} component that holds it ({@code bind})
     * @param title  a heading for it ({@code Socket})
     */
    public record Group(String record, String title) {
    }

    /** The records, in {@link ApxConfig}'s order. */
    public static final List<Group> GROUPS = List.of(
            new Group("app", "App"),
            new Group("bind", "Socket"),
            new Group("http", "HTTP"),
            new Group("limits", "Limits and timeouts"),
            new Group("tls", "TLS"),
            new Group("webSockets", "WebSockets"),
            new Group("runtime", "Python runtime"),
            new Group("warmup", "Warm-up"),
            new Group("logging", "Logging"),
            new Group("metrics", "Metrics"),
            new Group("workers", "Processes and reload"));

    /** Every setting, record by record in {@link #GROUPS}' order. */
    public static final List<Setting> ALL = List.of(
            Setting.of("app", "spec", "module:attribute", null, "module:attribute of an ASGI or WSGI app.", ""),
            Setting.of("app", "factory", "bool", false, "APP is a factory: call it to get the app.", ""),
            Setting.of("app", "appDir", "path", Defaults.APP_DIR, "Import APP from this directory.", "It goes first on sys.path before APP is imported."),
            Setting.of("app", "appInterface", "auto|asgi3|asgi2|wsgi", Interface.AUTO, "ASGI 3, ASGI 2 or WSGI.", "auto picks asgi3 or asgi2 as Uvicorn does; a WSGI app (Flask, Django's WSGI handler) needs --interface wsgi."),
            Setting.of("app", "lifespan", "auto|on|off", LifespanMode.AUTO, "Lifespan implementation.", ""),
            Setting.of("app", "envFile", "path", null, "Environment for the app: KEY=VALUE lines.", ""),
            Setting.of("app", "rootPath", "string", Defaults.ROOT_PATH, "ASGI root_path: the app's mount prefix.", ""),
            Setting.of("app", "proxyHeaders", "bool", Defaults.PROXY_HEADERS, "Use X-Forwarded-For and -Proto.", "Only from the addresses of --forwarded-allow-ips: they give the client's address and the scheme."),
            Setting.of("app", "forwardedAllowIps", "addresses", Setting.words("$FORWARDED_ALLOW_IPS or " + Defaults.FORWARDED_ALLOW_IPS), "Proxies trusted for proxy headers.", "Comma-separated addresses or networks (CIDR); '*' trusts every client."),
            Setting.of("app", "resetContextvars", "bool", false, "A fresh contextvars.Context per request.", "As Uvicorn does; it hides what the app's import set in contextvars. Without it, each request runs in a copy of the context the app was imported in."),
            Setting.of("bind", "host", "host", Defaults.HOST, "Bind socket to this host.", ""),
            Setting.of("bind", "port", "int", Defaults.PORT, "Bind to this port (0: any free).", ""),
            Setting.of("bind", "uds", "path", null, "Bind to a Unix domain socket.", ""),
            Setting.of("bind", "fd", "int", null, "Serve on the listening socket of this fd.", "A socket from systemd or a parent process."),
            Setting.of("bind", "backlog", "int", Defaults.BACKLOG, "Maximum pending connections.", ""),
            Setting.of("http", "http2", "bool", Defaults.HTTP2, "Serve HTTP/2 as well as HTTP/1.1.", "HTTP/2 through ALPN on TLS, and with prior knowledge in cleartext; off: HTTP/1.1 only."),
            Setting.of("http", "h2cUpgrade", "bool", false, "Take up 'Upgrade: h2c' (off: h2c smuggling).", "Off by default: a proxy that forwards the upgrade without understanding it lets clients smuggle HTTP/2 requests past it. h2c with prior knowledge needs no flag."),
            Setting.of("http", "h2MaxConcurrentStreams", "int", Defaults.H2_MAX_CONCURRENT_STREAMS, "HTTP/2 streams open at once.", "Per connection; one more is refused."),
            Setting.of("http", "h2MaxHeaderListSize", "bytes", Defaults.H2_MAX_HEADER_LIST_SIZE, "Largest HTTP/2 header block.", "Decoded size of a request's header block; a larger one ends the connection."),
            Setting.of("http", "h2InitialWindowSize", "bytes", Defaults.H2_INITIAL_WINDOW_SIZE, "HTTP/2 stream's flow window.", "Request body bytes a stream may send before the app reads them."),
            Setting.of("http", "h2MaxFrameSize", "bytes", Defaults.H2_MAX_FRAME_SIZE, "Largest HTTP/2 frame a client may send.", ""),
            Setting.of("http", "serverHeader", "bool", Defaults.SERVER_HEADER, "Send 'server: apx'.", ""),
            Setting.of("http", "dateHeader", "bool", Defaults.DATE_HEADER, "Send 'date'.", ""),
            Setting.of("http", "headers", "NAME:VALUE list", null, "Add this header to responses (repeatable).", ""),
            Setting.of("limits", "concurrency", "int", null, "503 beyond this many requests in flight.", ""),
            Setting.of("limits", "requestLine", "bytes", Defaults.LIMIT_REQUEST_LINE, "414 for a longer request line.", ""),
            Setting.of("limits", "requestFields", "int", Defaults.LIMIT_REQUEST_FIELDS, "431 for more header fields.", ""),
            Setting.of("limits", "requestFieldSize", "bytes", Defaults.LIMIT_REQUEST_FIELD_SIZE, "431 for a longer header field.", ""),
            Setting.of("limits", "requestHeaders", "bytes", Defaults.LIMIT_REQUEST_HEADERS, "431 for a longer request head.", ""),
            Setting.of("limits", "maxBody", "bytes", null, "413 for a longer request body.", ""),
            Setting.of("limits", "maxRequests", "long", null, "Stop (gracefully) after this many requests.", ""),
            Setting.of("limits", "maxRequestsJitter", "int", Defaults.LIMIT_MAX_REQUESTS_JITTER, "Add 0..N to --limit-max-requests.", "A random 0..N per worker, so that workers are not all replaced at once."),
            Setting.of("limits", "keepAliveTimeout", "seconds", Defaults.TIMEOUT_KEEP_ALIVE, "Close idle keep-alive connections.", ""),
            Setting.of("limits", "requestHeaderTimeout", "seconds", Defaults.TIMEOUT_REQUEST_HEADER, "Deadline for a request's head.", "A connection whose request head is still incomplete after this long is closed."),
            Setting.of("limits", "requestBodyTimeout", "seconds", Defaults.TIMEOUT_REQUEST_BODY, "Deadline between two bytes of a request body.", "When a request body the server waits for brings no byte for this long, the client gets a 408 and the connection is closed."),
            Setting.of("limits", "writeTimeout", "seconds", Defaults.TIMEOUT_WRITE, "Close when a client stops reading.", "A connection whose client has read nothing of a waiting response for this long is closed."),
            Setting.of("limits", "gracefulShutdownTimeout", "seconds", null, "On shutdown, cancel requests after this.", "Requests still running then get CancelledError; lifespan shutdown runs after them."),
            Setting.of("tls", "certFile", "path", null, "TLS certificate (PEM) and chain: serve HTTPS.", ""),
            Setting.of("tls", "keyFile", "path", null, "TLS private key (PEM, may be encrypted).", "PKCS#8, PKCS#1 or SEC1."),
            Setting.of("tls", "keyFilePassword", "string", null, "Password of an encrypted --ssl-keyfile.", ""),
            Setting.of("tls", "version", "int", Defaults.SSL_VERSION, "Python's ssl.PROTOCOL_* number.", "17 or 2: TLS 1.2 and 1.3; 5: TLS 1.2 only."),
            Setting.of("tls", "certReqs", "int", Defaults.SSL_CERT_REQS, "Ask for client certificates: 0-2.", "0: none, 1: optional, 2: required (needs --ssl-ca-certs)."),
            Setting.of("tls", "caCerts", "path", null, "CA certificates (PEM) for client certificates.", ""),
            Setting.of("tls", "ciphers", "string", null, "Cipher suites, ':'-separated.", ""),
            Setting.of("tls", "engine", "auto|openssl|jdk", Defaults.SSL_ENGINE, "TLS engine.", "auto uses BoringSSL (netty-tcnative) where it loads, else the JDK's TLS."),
            Setting.of("webSockets", "enabled", "bool", Defaults.WS, "Take up WebSocket upgrades.", "Off: upgrade requests go to the app as plain HTTP."),
            Setting.of("webSockets", "maxSize", "bytes", Defaults.WS_MAX_SIZE, "Largest message, in bytes.", "A larger one closes the WebSocket with 1009."),
            Setting.of("webSockets", "maxQueue", "int", Defaults.WS_MAX_QUEUE, "Messages that may await the app.", "Beyond it apx stops reading the socket until the app catches up."),
            Setting.of("webSockets", "pingInterval", "seconds", Defaults.WS_PING_INTERVAL, "Seconds between pings (0: none).", ""),
            Setting.of("webSockets", "pingTimeout", "seconds", Defaults.WS_PING_TIMEOUT, "Pong deadline (0: none).", "A WebSocket whose pong is later closes with 1011."),
            Setting.of("webSockets", "perMessageDeflate", "bool", Defaults.WS_PER_MESSAGE_DEFLATE, "Compress messages (permessage-deflate).", ""),
            Setting.of("runtime", "python", "path", Setting.words("$VIRTUAL_ENV or python3"), "The Python whose packages the app uses.", "apx embeds this interpreter's libpython (a shared build: pyenv with --enable-shared, or a distribution's python3 with its libpython package) and imports the app with its sys.path."),
            Setting.of("runtime", "interpreters", "int", Defaults.INTERPRETERS, "Python runtimes, each with its GIL.", "1 to 16. Each runtime has its own GIL, event loop, app import and lifespan, in a glibc link-map namespace of its own; connections are spread over them at accept and stay on one (docs/interpreters.md)."),
            Setting.of("runtime", "loop", "auto|asyncio|uvloop", Defaults.LOOP, "Event loop implementation.", ""),
            Setting.of("runtime", "io", "loop|threads", Defaults.IO, "Which threads do socket I/O.", "threads: Netty's threads (one per core) read and write the sockets and hand each request to the loop thread. loop: the asyncio loop's own thread does, as under Uvicorn, with no hand-off between threads (docs/server.md)."),
            Setting.of("runtime", "blockingThreads", "int", Defaults.BLOCKING_THREADS, "Threads that run a WSGI app.", ""),
            Setting.of("runtime", "gcThreshold", "int", Defaults.GC_THRESHOLD, "Python's gen-0 gc threshold.", "0 keeps CPython's own. Set before the app is imported; an app's own gc.set_threshold wins. CPython's default (700; 2000 on 3.13) makes apx's loop, which begins batches of requests at once, collect about 30 times as often as Uvicorn's (docs/bridge.md)."),
            Setting.of("runtime", "slowCallbackDuration", "seconds", Defaults.SLOW_CALLBACK_DURATION, "Warn of a loop blocked this long.", "The warning names the request whose handler ran this long without awaiting, as asyncio's debug mode names slow callbacks; 0 turns it off."),
            Setting.of("warmup", "requests", "int", Defaults.WARMUP, "JIT warm-up requests (0: none).", "The requests (HTTP/1.1, h2, WebSocket messages; TLS when configured) go over loopback TCP to a server of apx's own on 127.0.0.1 with a built-in app, never APP, so that the first clients meet compiled code."),
            Setting.of("warmup", "mode", "idle|before", Defaults.WARMUP_MODE, "When the warm-up runs.", "idle: after the port opens, only while the server has had no request for 100 ms; it ends once apx has answered --warmup requests of its own. before: the port opens after it, and the first clients wait about 1.5 s longer. --io loop always warms up before."),
            Setting.of("logging", "level", "trace|debug|info|warning|error|critical", Defaults.LOG_LEVEL, "Log level.", "With --log-config and no --log-level, the file's levels stay."),
            Setting.of("logging", "config", "path", null, "Logging config file: .json, .yaml or .ini.", "Read as Uvicorn reads it: .json and .yaml/.yml through logging.config.dictConfig, any other through fileConfig. Server lines then go to the logger uvicorn.error, access lines to uvicorn.access."),
            Setting.of("logging", "accessLog", "bool", Defaults.ACCESS_LOG, "Log one line per request.", ""),
            Setting.of("logging", "useColors", "bool", Setting.words("on a terminal"), "Color the levels.", "Color the log level names."),
            Setting.of("metrics", "enabled", "bool", false, "Serve Prometheus metrics.", "HTTP, WebSocket, bridge, Python GIL, loop and GC, and JVM series, on --metrics-host:--metrics-port, apart from the app's port (docs/metrics.md)."),
            Setting.of("metrics", "host", "host", Defaults.METRICS_HOST, "Metrics endpoint's host.", ""),
            Setting.of("metrics", "port", "int", Defaults.METRICS_PORT, "Metrics endpoint's port (0: any free).", ""),
            Setting.of("workers", "workers", "int", Setting.words("$WEB_CONCURRENCY or 1"), "Worker processes (not with --reload).", "Each worker is a process with its own JVM and Python, all serving one socket; a supervisor replaces a worker that dies or stops answering. 0 means 1, as with Uvicorn."),
            Setting.of("workers", "reload", "bool", false, "Reload when a watched file changes.", "The new code loads into fresh Python runtimes of the running worker, or the worker restarts when that cannot be done."),
            Setting.of("workers", "reloadDirs", "path list", Setting.words("."), "Watch this directory (repeatable).", ""),
            Setting.of("workers", "reloadIncludes", "glob list", Setting.words("*.py"), "Also watch these (repeatable).", "A default named by --reload-exclude is dropped."),
            Setting.of("workers", "reloadExcludes", "glob list", Setting.words(".*, .py[cod], .sw.*, ~*"), "Ignore these files or dirs (repeatable).", "A default named by --reload-include is dropped."),
            Setting.of("workers", "reloadDelay", "seconds", Defaults.RELOAD_DELAY, "Seconds between checks.", ""),
            Setting.of("workers", "healthcheckTimeout", "seconds", Defaults.TIMEOUT_WORKER_HEALTHCHECK, "Replace a worker silent this long.", "A worker whose event loop does not answer the supervisor within this time is replaced."));

    private Settings() {
    }

    /**
     * The setting called {@code key}.
     *
     * @param key {@code record.name}, e.g. {@code bind.port}
     * @return the setting
     * @throws IllegalArgumentException no setting has that key
     */
    public static Setting find(String key) {
        for (Setting setting : ALL) {
            if (setting.key().equals(key)) {
                return setting;
            }
        }
        throw new IllegalArgumentException("no setting " + key);
    }
}
