package dev.apx.cli;

import dev.apx.app.AppConfig;
import dev.apx.app.TrustedHosts;
import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.lifespan.Lifespan;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.LoopKind;
import dev.apx.host.AppLoader;
import dev.apx.host.AppNotFound;
import dev.apx.host.Interface;
import dev.apx.log.Log;
import dev.apx.python.PythonException;
import dev.apx.python.PythonSetupException;
import dev.apx.server.shared.ExtraHeaders;
import dev.apx.server.shared.Limits;
import dev.apx.server.shared.ServerConfig;
import dev.apx.supervisor.CannotBind;
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
 * {@link OptionGroups} lays out {@code --help} by topic; keep each description to a line or two.
 *
 * <p>Exit codes, as Uvicorn's for the same mistakes: 0 after a clean shutdown; 1 Python or a file
 * could not be set up, or the app raised while it was imported; 2 bad usage or a bad flag value; 3 APP
 * names no module or attribute, the app's lifespan startup failed, the port could not be bound, or
 * with {@code --workers} a worker could not start.
 */
@Command(name = "apx", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        customSynopsis = "apx [OPTIONS] APP",
        description = {"", "Serve APP, an ASGI or WSGI app, from an embedded CPython; Netty does the I/O."},
        footer = {"", "Each option can also be set from the environment: APX_PORT=8001 for --port 8001."})
public final class Main implements Callable<Integer> {
    @Parameters(paramLabel = "APP", description = "module:attribute of an ASGI or WSGI app.")
    String app;

    @Option(names = "--factory", description = "APP is a factory: call it to get the app.")
    boolean factory;

    @Option(names = "--app-dir", paramLabel = "DIR", defaultValue = ".", description = {"Import APP from this directory.",
                    "It goes first on sys.path before APP is imported."})
    Path appDir;

    @Option(names = "--host", paramLabel = "HOST", defaultValue = "127.0.0.1", description = "Bind socket to this host.")
    String host;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8000", description = "Bind to this port (0: any free).")
    int port;

    @Option(names = "--uds", paramLabel = "PATH", description = "Bind to a Unix domain socket.")
    Path uds;

    @Option(names = "--loop", defaultValue = "auto", paramLabel = "[auto|asyncio|uvloop]", converter = Choice.Loop.class,
            description = "Event loop implementation.")
    LoopKind loop;

    @Option(names = "--io", defaultValue = "threads", paramLabel = "[loop|threads]", converter = Choice.Io.class,
            description = {"Which threads do socket I/O.",
                    "threads: Netty's threads (one per core) read and write the sockets and hand each request to the "
                    + "loop thread. loop: the asyncio loop's own thread does, as under Uvicorn, with no hand-off between "
                    + "threads (docs/server.md)."})
    IoMode ioMode;

    @Option(names = "--lifespan", defaultValue = "auto", paramLabel = "[auto|on|off]", converter = Choice.LifespanMode.class,
            description = "Lifespan implementation.")
    Lifespan.Mode lifespan;

    @Option(names = "--root-path", paramLabel = "PATH", defaultValue = "",
            description = "ASGI root_path: the app's mount prefix.")
    String rootPath;

    @Option(names = "--proxy-headers", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = {"Use X-Forwarded-For and -Proto.",
                    "Only from the addresses of --forwarded-allow-ips: they give the client's address and the scheme."})
    boolean proxyHeaders;

    @Option(names = "--forwarded-allow-ips", paramLabel = "IPS",
            description = {"Proxies trusted for proxy headers.",
                    "Comma-separated addresses or networks (CIDR); '*' trusts every client."})
    String forwardedAllowIps;

    @Option(names = "--timeout-keep-alive", defaultValue = "5", paramLabel = "SECONDS",
            description = "Close idle keep-alive connections.")
    int timeoutKeepAlive;

    @Option(names = "--slow-callback-duration", paramLabel = "SECONDS", defaultValue = "0.5",
            description = {"Warn of a loop blocked this long.",
                    "The warning names the request whose handler ran this long without awaiting, as asyncio's debug mode names slow callbacks; 0 turns it off."})
    double slowCallbackDuration;

    @Option(names = "--gc-threshold", paramLabel = "N", defaultValue = "" + BridgeConfig.DEFAULT_GC_THRESHOLD,
            description = {"Python's gen-0 gc threshold.",
                    "0 keeps CPython's own. Set before the app is imported; an app's own gc.set_threshold wins. CPython's default (700; 2000 on 3.13) makes apx's loop, which begins batches of requests at once, collect about 30 times as often as Uvicorn's (docs/bridge.md)."})
    int gcThreshold;

    @Option(names = "--timeout-graceful-shutdown", paramLabel = "SECONDS",
            description = {"On shutdown, cancel requests after this.",
                    "Requests still running then get CancelledError; lifespan shutdown runs after them."})
    Integer timeoutGracefulShutdown;

    @Option(names = "--limit-concurrency", paramLabel = "N", description = "503 beyond this many requests in flight.")
    Integer limitConcurrency;

    @Option(names = "--backlog", paramLabel = "N", defaultValue = "2048", description = "Maximum pending connections.")
    int backlog;

    @Option(names = "--limit-max-requests", paramLabel = "N", description = "Stop (gracefully) after this many requests.")
    Long limitMaxRequests;

    @Option(names = "--limit-request-line", paramLabel = "BYTES", defaultValue = "8192", description = "414 for a longer request line.")
    int limitRequestLine;

    @Option(names = "--limit-request-fields", paramLabel = "N", defaultValue = "100", description = "431 for more header fields.")
    int limitRequestFields;

    @Option(names = "--limit-request-field-size", paramLabel = "BYTES", defaultValue = "8190",
            description = "431 for a longer header field.")
    int limitRequestFieldSize;

    @Option(names = "--limit-request-headers", paramLabel = "BYTES", defaultValue = "16384",
            description = "431 for a longer request head.")
    int limitRequestHeaders;

    @Option(names = "--limit-max-body", paramLabel = "BYTES", description = "413 for a longer request body.")
    Long limitMaxBody;

    @Option(names = "--timeout-request-header", paramLabel = "SECONDS", defaultValue = "60",
            description = {"Deadline for a request's head.",
                    "A connection whose request head is still incomplete after this long is closed."})
    int timeoutRequestHeader;

    @Option(names = "--timeout-request-body", paramLabel = "SECONDS", defaultValue = "60",
            description = {"Deadline between two bytes of a request body.",
                    "When a request body the server waits for brings no byte for this long, the client gets a 408 and the connection is closed."})
    int timeoutRequestBody;

    @Option(names = "--timeout-write", paramLabel = "SECONDS", defaultValue = "60",
            description = {"Close when a client stops reading.",
                    "A connection whose client has read nothing of a waiting response for this long is closed."})
    int timeoutWrite;

    @Option(names = "--log-level", paramLabel = "[critical|error|warning|info|debug|trace]",
            converter = Choice.LogLevel.class, description = {"Log level.",
                    "With --log-config and no --log-level, the file's levels stay."})
    Log.Level logLevel; // null when not given: --log-config's levels then stay, as with Uvicorn

    @Option(names = "--access-log", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Log one line per request.")
    boolean accessLog;

    @Option(names = "--server-header", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Send 'server: apx'.")
    boolean serverHeader;

    @Option(names = "--date-header", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Send 'date'.")
    boolean dateHeader;

    @Option(names = "--env-file", paramLabel = "PATH", description = "Environment for the app: KEY=VALUE lines.")
    Path envFile;

    // ---- WSGI and ASGI 2 (dev.apx.wsgi, _apx._interface)

    @Option(names = "--interface", defaultValue = "auto", paramLabel = "[auto|asgi3|asgi2|wsgi]", converter = Choice.InterfaceKind.class,
            description = {"ASGI 3, ASGI 2 or WSGI.",
                    "auto picks asgi3 or asgi2 as Uvicorn does; a WSGI app (Flask, Django's WSGI handler) needs "
                    + "--interface wsgi."})
    Interface appInterface;

    @Option(names = "--blocking-threads", paramLabel = "N", defaultValue = "" + WsgiConfig.DEFAULT_THREADS,
            description = "Threads that run a WSGI app.")
    int blockingThreads;

    @CommandLine.Mixin
    WebSocketOptions webSockets = new WebSocketOptions();

    @Option(names = "--warmup", paramLabel = "REQUESTS", defaultValue = "500",
            description = {"JIT warm-up requests (0: none).",
                    "The requests (HTTP/1.1, h2, WebSocket messages; TLS when configured) go over loopback TCP to a "
                    + "server of apx's own on 127.0.0.1 with a built-in app, never APP, so that the first clients meet "
                    + "compiled code."})
    int warmup;

    @Option(names = "--warmup-mode", defaultValue = "idle", paramLabel = "[idle|before]", converter = Choice.Warmup.class,
            description = {"When the warm-up runs.",
                    "idle: after the port opens, only while the server has had no request for 100 ms; it ends once apx "
                    + "has answered --warmup requests of its own. before: the port opens after it, and the first clients "
                    + "wait about 1.5 s longer. --io loop always warms up before."})
    WarmupMode warmupMode;

    // --- processes and reload: see dev.apx.supervisor
    @Option(names = "--fd", paramLabel = "N", description = {"Serve on the listening socket of this fd.",
                    "A socket from systemd or a parent process."})
    Integer fd;

    @Option(names = "--workers", paramLabel = "N",
            description = {"Worker processes (not with --reload).",
                    "Each worker is a process with its own JVM and Python, all serving one socket; a supervisor replaces "
                    + "a worker that dies or stops answering. 0 means 1, as with Uvicorn."})
    Integer workers;

    @Option(names = "--interpreters", paramLabel = "N", defaultValue = "1",
            description = {"Python runtimes, each with its GIL.",
                    "1 to 16. Each runtime has its own GIL, event loop, app import and lifespan, in a glibc link-map namespace of its own; connections are spread over them at accept and stay on one (docs/interpreters.md)."})
    int interpreters;

    @Option(names = "--limit-max-requests-jitter", paramLabel = "N", defaultValue = "0",
            description = {"Add 0..N to --limit-max-requests.",
                    "A random 0..N per worker, so that workers are not all replaced at once."})
    int limitMaxRequestsJitter;

    @Option(names = "--timeout-worker-healthcheck", paramLabel = "SECONDS", defaultValue = "5",
            description = {"Replace a worker silent this long.",
                    "A worker whose event loop does not answer the supervisor within this time is replaced."})
    int timeoutWorkerHealthcheck;

    @Option(names = "--reload", description = {"Reload when a watched file changes.",
                    "The new code loads into fresh Python runtimes of the running worker, or the worker restarts when "
                    + "that cannot be done."})
    boolean reload;

    @Option(names = "--reload-dir", paramLabel = "PATH", description = "Watch this directory (repeatable).")
    List<Path> reloadDirs = new ArrayList<>();

    @Option(names = "--reload-include", paramLabel = "GLOB", description = {"Also watch these (repeatable).",
                    "A default named by --reload-exclude is dropped."})
    List<String> reloadIncludes = new ArrayList<>();

    @Option(names = "--reload-exclude", paramLabel = "GLOB", description = {"Ignore these files or dirs (repeatable).",
                    "A default named by --reload-include is dropped."})
    List<String> reloadExcludes = new ArrayList<>();

    @Option(names = "--reload-delay", paramLabel = "SECONDS", defaultValue = "0.25", description = "Seconds between checks.")
    double reloadDelay;

    @Option(names = "--header", paramLabel = "NAME:VALUE", description = "Add this header to responses (repeatable).")
    List<String> headers = new ArrayList<>();

    @Option(names = "--use-colors", negatable = true, description = {"Color the levels.",
                    "Color the log level names."})
    Boolean useColors;

    @Option(names = "--h11-max-incomplete-event-size", paramLabel = "BYTES", description = {"Uvicorn's name for --limit-request-headers.",
                    "Accepted for Uvicorn's command lines."})
    Integer h11MaxIncompleteEventSize;

    // --- logging through Python: see LogConfig
    @Option(names = "--log-config", paramLabel = "PATH",
            description = {"Logging config file: .json, .yaml or .ini.",
                    "Read as Uvicorn reads it: .json and .yaml/.yml through logging.config.dictConfig, any other through "
                    + "fileConfig. Server lines then go to the logger uvicorn.error, access lines to uvicorn.access."})
    Path logConfig;

    @Option(names = "--reset-contextvars", description = {"A fresh contextvars.Context per request.",
                    "As Uvicorn does; it hides what the app's import set in contextvars. Without it, each request runs "
                    + "in a copy of the context the app was imported in."})
    boolean resetContextvars;

    private String[] rawArgs = new String[0];
    WorkerLink workerLink;

    @CommandLine.Mixin
    MetricsOptions metrics = new MetricsOptions();

    @CommandLine.Mixin
    ProtocolOptions protocolOptions = new ProtocolOptions();

    @Option(names = "--python", paramLabel = "PATH", description = {"The Python whose packages the app uses.",
                    "apx embeds this interpreter's libpython (a shared build: pyenv with --enable-shared, or a "
                    + "distribution's python3 with its libpython package) and imports the app with its sys.path."})
    Path python;

    public static void main(String[] args) {
        Log.useConsole(); // the command line writes Uvicorn's lines itself; a host's JVM logs through SLF4J
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // Netty samples 1 buffer in 128 with a stack trace by default; the tests keep that on.
            io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        }
        Main main = new Main();
        main.rawArgs = args;
        CommandLine commandLine = new CommandLine(main);
        OptionGroups.install(commandLine);
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
        err.println("Error: " + usageMessage(e));
        err.flush();
        return CommandLine.ExitCode.USAGE;
    }

    /** click's words for a misspelt option (the first unknown one, and the option it is closest to) and a missing APP. */
    static String usageMessage(CommandLine.ParameterException e) {
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched) {
            String option = unmatched.getUnmatched().stream().filter(arg -> arg.startsWith("-")).findFirst().orElse(null);
            if (option != null) {
                String name = option.contains("=") ? option.substring(0, option.indexOf('=')) : option;
                List<String> close = unmatched.getSuggestions().stream().filter(s -> s.startsWith("--")).toList();
                return "No such option '" + name + "'." + (close.isEmpty() ? "" : " Did you mean '" + close.getFirst() + "'?");
            }
        }
        if (e instanceof CommandLine.MissingParameterException missing && missing.getMissing().stream().anyMatch(arg -> !arg.isOption())) {
            return "Missing argument 'APP'.";
        }
        return e.getMessage();
    }

    @Override
    public Integer call() {
        try {
            Log.setLevel(logLevel != null ? logLevel : Log.Level.INFO);
            Log.setColors(useColors != null ? useColors : System.console() != null && System.console().isTerminal());
            ExtraHeaders.set(headers);
            check();
            return superviseOrServe();
        } catch (BadFlag e) {
            System.err.println("apx: error: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        } catch (AppNotFound e) {
            System.err.println("apx: error: cannot load app '" + app + "': " + e.getMessage());
            return 3;
        } catch (CannotBind e) {
            System.err.println("apx: error: " + e.getMessage());
            return 3;
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
            throw new BadFlag("--warmup must be 0 or more requests, got " + warmup);
        }
        if (logConfig != null) {
            LogConfig.checkReadable(logConfig); // once, before Python (and before any worker) starts
        }
        if (gcThreshold < 0) {
            throw new BadFlag("--gc-threshold must be 0 (CPython's own) or more, got " + gcThreshold);
        }
        if (!(slowCallbackDuration >= 0)) {
            throw new BadFlag("--slow-callback-duration must be 0 or more seconds, got " + slowCallbackDuration);
        }
        if (interpreters < 1 || interpreters > 16) {
            throw new BadFlag("--interpreters must be 1 to 16 (glibc has 16 link-map namespaces), got " + interpreters);
        }
        if (interpreters > 1 && ioMode == IoMode.LOOP) {
            throw new BadFlag("--io loop runs the sockets on one runtime's event loop; with --interpreters "
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
        int processes = processes();
        atLeast("--timeout-worker-healthcheck", timeoutWorkerHealthcheck, 1);
        atLeast("--limit-max-requests-jitter", limitMaxRequestsJitter, 0);
        if (fd != null) {
            atLeast("--fd", fd, 0);
        }
        if (!(reloadDelay >= 0)) {
            throw new BadFlag("--reload-delay must be 0 or more seconds, got " + reloadDelay);
        }
        workerLink = WorkerLink.fromEnvironment(System.getenv()).orElse(null);
        serverConfig(); // bad limits fail here, before Python starts
        if (workerLink == null && (reload || processes > 1)) {
            webSockets.config(); // bad flags fail here, once, not in every worker
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

    /** --workers, else $WEB_CONCURRENCY, else 1; 0 means 1, as Uvicorn's {@code workers or 1}. */
    private int processes() {
        if (workers != null) {
            atLeast("--workers", workers, 0);
            return Math.max(1, workers);
        }
        String value = System.getenv("WEB_CONCURRENCY");
        try {
            int count = value == null || value.isBlank() ? 1 : Integer.parseInt(value.strip());
            if (count >= 0) {
                return Math.max(1, count);
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new BadFlag("WEB_CONCURRENCY must be a number of processes, got '" + value + "'");
    }

    private static void atLeast(String flag, long value, long least) {
        if (value < least) {
            throw new BadFlag(flag + " must be " + least + " or more, got " + value);
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
        atLeast("--limit-request-line", limitRequestLine, 1);
        atLeast(h11MaxIncompleteEventSize != null ? "--h11-max-incomplete-event-size" : "--limit-request-headers", limitRequestHeaders, 1);
        atLeast("--backlog", backlog, 1);
        Limits limits;
        try {
            limits = new Limits(limitRequestFields, limitRequestFieldSize, limitMaxBody == null ? 0 : limitMaxBody,
                    timeoutRequestHeader, timeoutRequestBody, timeoutWrite, maxRequests());
        } catch (IllegalArgumentException e) {
            throw new BadFlag(e.getMessage()); // it names the flag
        }
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
        return workerLink != null && !reload && processes() > 1;
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
