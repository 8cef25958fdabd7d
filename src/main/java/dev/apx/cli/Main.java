package dev.apx.cli;

import dev.apx.app.AppConfig;
import dev.apx.app.TrustedHosts;
import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.lifespan.Lifespan;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.LoopKind;
import dev.apx.host.AppLoader;
import dev.apx.host.Interface;
import dev.apx.log.Log;
import dev.apx.python.PythonException;
import dev.apx.python.PythonSetupException;
import dev.apx.server.shared.ExtraHeaders;
import dev.apx.server.shared.Limits;
import dev.apx.server.shared.ServerConfig;
import dev.apx.supervisor.Reloader;
import dev.apx.supervisor.Supervisor;
import dev.apx.supervisor.WorkerLink;
import dev.apx.wsgi.WsgiConfig;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code apx [options] APP}: Uvicorn's command line, mapped onto {@link ServerConfig},
 * {@link AsgiConfig} and {@link Serve}. Every option can also come from {@code APX_<NAME>}.
 *
 * <p>Exit codes: 0 after a clean shutdown, 1 Python, the app or the socket could not be set up,
 * 2 bad usage, 3 the app's lifespan startup failed, or with {@code --workers} a worker could not start (as Uvicorn).
 */
@Command(name = "apx", mixinStandardHelpOptions = true, version = "apx 0.1.0", sortOptions = false,
        description = "ASGI server: Netty for the network, an embedded CPython for the app.")
public final class Main implements Callable<Integer> {
    @Parameters(paramLabel = "APP", description = "The ASGI app as module:attribute, e.g. main:app.")
    String app;

    @Option(names = "--factory", description = "APP is a factory: call it (no arguments) to get the ASGI app.")
    boolean factory;

    @Option(names = "--app-dir", paramLabel = "DIR", defaultValue = ".",
            description = "Look for APP in this directory (put first on sys.path). Default: ${DEFAULT-VALUE}.")
    Path appDir;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Bind socket to this host. Default: ${DEFAULT-VALUE}.")
    String host;

    @Option(names = "--port", defaultValue = "8000", description = "Bind socket to this port (0: any free port). Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--uds", paramLabel = "PATH", description = "Bind to a Unix domain socket.")
    Path uds;

    @Option(names = "--loop", defaultValue = "auto", paramLabel = "[auto|asyncio|uvloop]", converter = Choice.Loop.class,
            description = "Event loop implementation. Default: auto.")
    LoopKind loop;

    @Option(names = "--io", defaultValue = "threads", paramLabel = "[loop|threads]", converter = Choice.Io.class,
            description = "Which thread runs the sockets' I/O: threads (Netty's threads, one per core, handing each request "
                    + "to the loop thread) or loop (the event loop's own thread, as Uvicorn: no hand-off between threads; "
                    + "behind on plaintext and the frameworks, and since SCHED_BATCH on the database rows too: docs/server.md). Default: ${DEFAULT-VALUE}.")
    IoMode ioMode;

    @Option(names = "--lifespan", defaultValue = "auto", paramLabel = "[auto|on|off]", converter = Choice.LifespanMode.class,
            description = "Lifespan implementation. Default: auto.")
    Lifespan.Mode lifespan;

    @Option(names = "--root-path", defaultValue = "", description = "The ASGI root_path for an app mounted below a path prefix.")
    String rootPath;

    @Option(names = "--proxy-headers", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Use X-Forwarded-Proto and X-Forwarded-For from trusted proxies. Default: on.")
    boolean proxyHeaders;

    @Option(names = "--forwarded-allow-ips", paramLabel = "IPS",
            description = "Comma-separated addresses or networks (CIDR) trusted for proxy headers, or '*'. "
                    + "Default: $FORWARDED_ALLOW_IPS or 127.0.0.1,::1.")
    String forwardedAllowIps;

    @Option(names = "--timeout-keep-alive", defaultValue = "5", paramLabel = "SECONDS",
            description = "Close keep-alive connections idle this long. Default: ${DEFAULT-VALUE}.")
    int timeoutKeepAlive;

    @Option(names = "--slow-callback-duration", paramLabel = "SECONDS", defaultValue = "0.5",
            description = "Log a warning naming a request whose handler runs this long without awaiting (it blocks the "
                    + "event loop), as asyncio's debug mode does for slow callbacks; 0 turns it off. Default: ${DEFAULT-VALUE}.")
    double slowCallbackDuration;

    @Option(names = "--gc-threshold", paramLabel = "N", defaultValue = "" + BridgeConfig.DEFAULT_GC_THRESHOLD,
            description = "Generation 0's threshold of Python's cyclic collector, set before the app is imported (an app's own "
                    + "gc.set_threshold wins); 0 keeps CPython's (700; 2000 on 3.13), under which the batches of requests apx's loop "
                    + "begins at once made it collect ~30x as often as under Uvicorn (docs/bridge.md). Default: ${DEFAULT-VALUE}.")
    int gcThreshold;

    @Option(names = "--timeout-graceful-shutdown", paramLabel = "SECONDS",
            description = "How long to wait for in-flight requests on shutdown before cancelling them. Default: no limit.")
    Integer timeoutGracefulShutdown;

    @Option(names = "--limit-concurrency", paramLabel = "N", description = "Answer 503 beyond this many requests in flight.")
    Integer limitConcurrency;

    @Option(names = "--backlog", defaultValue = "2048", description = "Maximum pending connections. Default: ${DEFAULT-VALUE}.")
    int backlog;

    @Option(names = "--limit-max-requests", paramLabel = "N",
            description = "Stop the server (gracefully) after this many requests. Default: no limit.")
    Long limitMaxRequests;

    @Option(names = "--limit-request-line", paramLabel = "BYTES", defaultValue = "8192",
            description = "414 for a request line longer than this. Default: ${DEFAULT-VALUE}.")
    int limitRequestLine;

    @Option(names = "--limit-request-fields", paramLabel = "N", defaultValue = "100",
            description = "431 for more header fields than this. Default: ${DEFAULT-VALUE}.")
    int limitRequestFields;

    @Option(names = "--limit-request-field-size", paramLabel = "BYTES", defaultValue = "8190",
            description = "431 for a header field (name: value) longer than this. Default: ${DEFAULT-VALUE}.")
    int limitRequestFieldSize;

    @Option(names = "--limit-request-headers", paramLabel = "BYTES", defaultValue = "16384",
            description = "431 for header lines longer than this all together. Default: ${DEFAULT-VALUE}.")
    int limitRequestHeaders;

    @Option(names = "--limit-max-body", paramLabel = "BYTES",
            description = "413 for a request body longer than this. Default: no limit.")
    Long limitMaxBody;

    @Option(names = "--timeout-request-header", paramLabel = "SECONDS", defaultValue = "60",
            description = "Close a connection whose request head is not complete after this long. Default: ${DEFAULT-VALUE}.")
    int timeoutRequestHeader;

    @Option(names = "--timeout-request-body", paramLabel = "SECONDS", defaultValue = "60",
            description = "408 and close when a request body the server waits for brings no byte for this long. Default: ${DEFAULT-VALUE}.")
    int timeoutRequestBody;

    @Option(names = "--timeout-write", paramLabel = "SECONDS", defaultValue = "60",
            description = "Close a connection whose client has read nothing of a waiting response for this long. Default: ${DEFAULT-VALUE}.")
    int timeoutWrite;

    @Option(names = "--log-level", paramLabel = "[critical|error|warning|info|debug|trace]",
            converter = Choice.LogLevel.class, description = "Log level. Default: info (with --log-config: the file's levels).")
    Log.Level logLevel; // null when not given: --log-config's levels then stay, as with Uvicorn

    @Option(names = "--access-log", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Log one line per request. Default: on.")
    boolean accessLog;

    @Option(names = "--server-header", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Send the 'server: apx' header. Default: on.")
    boolean serverHeader;

    @Option(names = "--date-header", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Send the 'date' header. Default: on.")
    boolean dateHeader;

    @Option(names = "--env-file", paramLabel = "PATH", description = "Environment variables for the app (KEY=VALUE lines).")
    Path envFile;

    // ---- WSGI and ASGI 2 (dev.apx.wsgi, _apx._interface)

    @Option(names = "--interface", defaultValue = "auto", paramLabel = "[auto|asgi3|asgi2|wsgi]", converter = Choice.InterfaceKind.class,
            description = "The app's interface; auto picks asgi3 or asgi2 as Uvicorn does (wsgi must be named). Default: auto.")
    Interface appInterface;

    @Option(names = "--blocking-threads", paramLabel = "N", defaultValue = "" + WsgiConfig.DEFAULT_THREADS,
            description = "Threads that run a WSGI app (--interface wsgi); requests beyond them wait. Default: ${DEFAULT-VALUE}.")
    int blockingThreads;

    @CommandLine.Mixin
    WebSocketOptions webSockets = new WebSocketOptions();

    // Startup (issues 13, 28): requests over loopback TCP to a server of apx's own app, while idle or before the port opens.
    @Option(names = "--warmup", paramLabel = "REQUESTS", defaultValue = "500",
            description = "Send about this many requests (HTTP/1.1, h2, WebSocket messages; TLS when configured) over "
                    + "loopback TCP to a server of apx's own on 127.0.0.1 with a built-in app (never APP), so that clients "
                    + "meet compiled code; when, --warmup-mode says. 0 turns it off. Default: ${DEFAULT-VALUE}.")
    int warmup;

    @Option(names = "--warmup-mode", defaultValue = "idle", paramLabel = "[idle|before]", converter = Choice.Warmup.class,
            description = "When the warm-up runs: idle (after the port opens, only while the server has had no request for "
                    + "100 ms; it ends once the server has answered --warmup requests of its own) or before (the port "
                    + "opens after it: the first clients wait ~1.5 s longer and meet compiled code). --io loop warms up "
                    + "before. Default: ${DEFAULT-VALUE}.")
    WarmupMode warmupMode;

    // --- processes and reload (issue 14): see dev.apx.supervisor
    @Option(names = "--fd", paramLabel = "N", description = "Serve on the listening socket of this file descriptor (from systemd or a parent process).")
    Integer fd;

    @Option(names = "--workers", paramLabel = "N",
            description = "Number of worker processes, each with its own Python, all on one socket. "
                    + "Default: $WEB_CONCURRENCY or 1. Not valid with --reload.")
    Integer workers;

    @Option(names = "--interpreters", paramLabel = "N", defaultValue = "1",
            description = "CPython runtimes in this process, each with its own GIL, event loop, app import and lifespan, "
                    + "each in a glibc link-map namespace of its own (1-16); connections are spread over them at accept "
                    + "and stay on one (docs/interpreters.md). Default: ${DEFAULT-VALUE}.")
    int interpreters;

    @Option(names = "--limit-max-requests-jitter", paramLabel = "N", defaultValue = "0",
            description = "Add a random 0..N to --limit-max-requests, so that workers are not all replaced at once. Default: ${DEFAULT-VALUE}.")
    int limitMaxRequestsJitter;

    @Option(names = "--timeout-worker-healthcheck", paramLabel = "SECONDS", defaultValue = "5",
            description = "Replace a worker whose event loop does not answer the supervisor within this time. Default: ${DEFAULT-VALUE}.")
    int timeoutWorkerHealthcheck;

    @Option(names = "--reload", description = "Load the new code when a watched file changes (development): into fresh Python runtimes of the running worker, or by restarting it when it cannot.")
    boolean reload;

    @Option(names = "--reload-dir", paramLabel = "PATH",
            description = "Watch this directory (repeatable) instead of the current working directory.")
    List<Path> reloadDirs = new ArrayList<>();

    @Option(names = "--reload-include", paramLabel = "GLOB",
            description = "Also watch files matching this glob (repeatable). Default: '*.py'; a default named by --reload-exclude is dropped.")
    List<String> reloadIncludes = new ArrayList<>();

    @Option(names = "--reload-exclude", paramLabel = "GLOB",
            description = "Ignore files matching this glob, or under this directory (repeatable). Default: '.*', '.py[cod]', '.sw.*', '~*'; "
                    + "a default named by --reload-include is dropped.")
    List<String> reloadExcludes = new ArrayList<>();

    @Option(names = "--reload-delay", paramLabel = "SECONDS", defaultValue = "0.25",
            description = "Delay between checks for changes. Default: ${DEFAULT-VALUE}.")
    double reloadDelay;

    // --- the rest of Uvicorn's command line (issue 14)
    @Option(names = "--header", paramLabel = "NAME:VALUE",
            description = "Add this header to every response (repeatable), after server and date.")
    List<String> headers = new ArrayList<>();

    @Option(names = "--use-colors", negatable = true,
            description = "Color the log level names. Default: when stderr is a terminal.")
    Boolean useColors;

    @Option(names = "--h11-max-incomplete-event-size", paramLabel = "BYTES",
            description = "Uvicorn's h11 limit on a buffered incomplete request head: sets --limit-request-headers.")
    Integer h11MaxIncompleteEventSize;

    // --- logging through Python (issue 14): see LogConfig
    @Option(names = "--log-config", paramLabel = "PATH",
            description = "Logging configuration file, read as Uvicorn reads it: .json or .yaml/.yml (dictConfig), else ini "
                    + "(fileConfig). Server lines then go to Python's logger uvicorn.error, access records to uvicorn.access.")
    Path logConfig;

    @Option(names = "--reset-contextvars",
            description = "Run each HTTP request in a fresh contextvars.Context (as Uvicorn): hides what the app's import "
                    + "set. Default: a copy of the context the app was imported in.")
    boolean resetContextvars;

    private String[] rawArgs = new String[0];
    WorkerLink workerLink;

    @CommandLine.Mixin
    MetricsOptions metrics = new MetricsOptions();

    @CommandLine.Mixin
    ProtocolOptions protocolOptions = new ProtocolOptions();

    @Option(names = "--python", paramLabel = "PATH",
            description = "The Python interpreter whose packages the app uses (default: $VIRTUAL_ENV, else python3 on PATH).")
    Path python;

    public static void main(String[] args) {
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // Netty samples 1 buffer in 128 with a stack trace by default; the tests keep that on.
            io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        }
        Main main = new Main();
        main.rawArgs = args;
        CommandLine commandLine = new CommandLine(main);
        commandLine.setDefaultValueProvider(new EnvDefaults(System.getenv()));
        commandLine.setParameterExceptionHandler(Main::usageError);
        System.exit(commandLine.execute(args));
    }

    /** As click does for Uvicorn: a short usage, a hint and the error, exit 2 (not the whole help). */
    private static int usageError(CommandLine.ParameterException e, String[] args) {
        java.io.PrintWriter err = e.getCommandLine().getErr();
        err.println("Usage: apx [OPTIONS] APP");
        err.println("Try 'apx --help' for help.");
        err.println();
        err.println("Error: " + e.getMessage());
        err.flush();
        return CommandLine.ExitCode.USAGE;
    }

    @Override
    public Integer call() {
        try {
            Log.setLevel(logLevel != null ? logLevel : Log.Level.INFO);
            Log.setColors(useColors != null ? useColors : System.console() != null && System.console().isTerminal());
            ExtraHeaders.set(headers);
            check();
            return superviseOrServe();
        } catch (PythonSetupException | IllegalArgumentException | java.io.UncheckedIOException e) {
            System.err.println("apx: error: " + e.getMessage());
            return 1;
        } catch (PythonException e) {
            System.err.print(e.pythonTraceback());
            System.err.println("apx: error: cannot load app '" + app + "': " + e.getMessage());
            return 1;
        }
    }

    /** The checks every run makes before Python starts. */
    private void check() {
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must be 0 or more requests, got " + warmup);
        }
        if (logConfig != null) {
            LogConfig.checkReadable(logConfig); // once, before Python (and before any worker) starts
        }
        if (gcThreshold < 0) {
            throw new IllegalArgumentException("--gc-threshold must be 0 (CPython's own) or more, got " + gcThreshold);
        }
        if (!(slowCallbackDuration >= 0)) {
            throw new IllegalArgumentException("--slow-callback-duration must be 0 or more seconds, got " + slowCallbackDuration);
        }
        if (interpreters < 1 || interpreters > 16) {
            throw new IllegalArgumentException("--interpreters must be 1 to 16 (glibc has 16 link-map namespaces), got " + interpreters);
        }
        if (interpreters > 1 && ioMode == IoMode.LOOP) {
            throw new IllegalArgumentException("--io loop runs the sockets on one runtime's event loop; with --interpreters "
                    + interpreters + " use --io threads");
        }
        AppLoader.checkSpec(app);
        wsgiConfig(); // bad --blocking-threads fails before Python starts
    }

    /**
     * A run inside a host's JVM ({@code dev.apx.ApxServer}): the same flags, but the JVM-wide
     * settings only when a flag asks for them, no signal handlers, and no supervisor.
     *
     * @throws IllegalArgumentException a bad or unsupported flag
     */
    static Serve embedded(String... args) {
        Main main = new Main();
        main.rawArgs = args;
        CommandLine commandLine = new CommandLine(main);
        try {
            commandLine.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException("apx: " + e.getMessage(), e);
        }
        if (main.workers != null && main.workers > 1 || main.reload || main.fd != null) {
            throw new IllegalArgumentException("apx: --workers, --reload and --fd need processes of their own: use the command line");
        }
        if (main.logLevel != null) {
            Log.setLevel(main.logLevel);
        }
        if (main.useColors != null) {
            Log.setColors(main.useColors);
        }
        if (!main.headers.isEmpty()) {
            ExtraHeaders.set(main.headers);
        }
        main.check();
        return new Serve(main, false);
    }

    /** A supervisor ({@code --reload}, {@code --workers} > 1) above the workers, or this process serves (a worker is one too). */
    private int superviseOrServe() {
        int processes = workers != null ? workers : webConcurrency();
        if (processes < 1 || timeoutWorkerHealthcheck < 1 || limitMaxRequestsJitter < 0 || !(reloadDelay >= 0) || (fd != null && fd < 0)) {
            throw new IllegalArgumentException("--workers and --timeout-worker-healthcheck must be at least 1; --fd, --reload-delay and "
                    + "--limit-max-requests-jitter at least 0");
        }
        workerLink = WorkerLink.fromEnvironment(System.getenv()).orElse(null);
        if (workerLink == null && (reload || processes > 1)) {
            webSockets.config(); // bad flags fail here, once, not in every worker
            serverConfig();
            if (reload) {
                if (processes > 1) {
                    Log.warning("\"workers\" flag is ignored when reloading is enabled.");
                }
                Signals.takeEvenIfIgnored(Reloader.SIGNALS.toArray(String[]::new));
                return new Reloader(rawArgs, reloadDirs(), reloadIncludes, reloadExcludes, reloadDelay).run(host, port, uds, fd, backlog);
            }
            Signals.takeEvenIfIgnored(Supervisor.SIGNALS.toArray(String[]::new));
            return new Supervisor(rawArgs, processes, timeoutWorkerHealthcheck, metrics.config(System.getenv())).run(host, port, uds, fd, backlog);
        }
        if (workerLink == null && (!reloadDirs.isEmpty() || !reloadIncludes.isEmpty() || !reloadExcludes.isEmpty())) {
            Log.warning("Current configuration will not reload as not all conditions are met, please refer to documentation.");
        }
        return new Serve(this, true).run();
    }

    private static int webConcurrency() {
        String value = System.getenv("WEB_CONCURRENCY");
        try {
            return value == null || value.isBlank() ? 1 : Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("WEB_CONCURRENCY must be a number of processes, got '" + value + "'");
        }
    }

    /** Uvicorn's: the given directories that exist, else the working directory. */
    List<Path> reloadDirs() {
        List<Path> dirs = reloadDirs.stream().filter(java.nio.file.Files::isDirectory).toList();
        if (dirs.isEmpty()) {
            if (!reloadDirs.isEmpty()) {
                Log.warning("Provided reload directories " + reloadDirs + " did not contain valid directories, watching current working directory.");
            }
            return List.of(Path.of("").toAbsolutePath());
        }
        return dirs;
    }

    /** The request limit of this process: --limit-max-requests plus a random 0..jitter, as Uvicorn draws it. */
    private long maxRequests() {
        if (limitMaxRequests == null) {
            return 0;
        }
        return limitMaxRequests + java.util.concurrent.ThreadLocalRandom.current().nextInt(limitMaxRequestsJitter + 1);
    }

    ServerConfig serverConfig() {
        ServerConfig d = ServerConfig.defaults();
        if (h11MaxIncompleteEventSize != null) {
            limitRequestHeaders = h11MaxIncompleteEventSize; // the same limit under h11's name
        }
        if (limitRequestLine <= 0 || limitRequestHeaders <= 0 || backlog <= 0) {
            throw new IllegalArgumentException("--limit-request-line, --limit-request-headers and --backlog must be at least 1");
        }
        Limits limits = new Limits(limitRequestFields, limitRequestFieldSize, limitMaxBody == null ? 0 : limitMaxBody,
                timeoutRequestHeader, timeoutRequestBody, timeoutWrite, maxRequests());
        // a worker serves on the supervisor's socket, and --fd on its own: neither binds (nor deletes) a path
        Path bindUds = workerLink != null || fd != null ? null : uds;
        return new ServerConfig(host, port, bindUds, backlog, timeoutKeepAlive, limitConcurrency == null ? 0 : limitConcurrency,
                serverHeader, dateHeader, limitRequestLine, limitRequestHeaders, accessLog, d.workerThreads(), limits);
    }

    WsgiConfig wsgiConfig() {
        return new WsgiConfig(appConfig(), blockingThreads, Math.round(slowCallbackDuration * 1000), isOneOfSeveralWorkers());
    }

    /** A worker of a --workers N > 1 supervisor (it has the supervisor's arguments and its socket in the environment). */
    private boolean isOneOfSeveralWorkers() {
        return workerLink != null && !reload && (workers != null ? workers : webConcurrency()) > 1;
    }

    AsgiConfig asgiConfig() {
        return new AsgiConfig(appConfig(), resetContextvars);
    }

    AppConfig appConfig() {
        String ips = forwardedAllowIps != null ? forwardedAllowIps
                : System.getenv().getOrDefault("FORWARDED_ALLOW_IPS", "127.0.0.1,::1");
        return new AppConfig(rootPath, proxyHeaders, TrustedHosts.parse(ips));
    }

}
