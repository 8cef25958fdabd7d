package dev.apx.cli;

import dev.apx.config.ApxConfig;
import dev.apx.config.Defaults;
import dev.apx.config.Interface;
import dev.apx.config.IoMode;
import dev.apx.config.LifespanMode;
import dev.apx.config.LogLevel;
import dev.apx.config.LoopKind;
import dev.apx.config.WarmupMode;
import dev.apx.host.AppNotFound;
import dev.apx.log.Log;
import dev.apx.python.PythonException;
import dev.apx.python.PythonSetupException;
import dev.apx.serve.ProcessRole;
import dev.apx.serve.ReloadDirs;
import dev.apx.serve.Serve;
import dev.apx.serve.ServeConfigs;
import dev.apx.server.shared.ExtraHeaders;
import dev.apx.supervisor.CannotBind;
import dev.apx.supervisor.Reloader;
import dev.apx.supervisor.Supervisor;
import dev.apx.supervisor.WorkerLink;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code apx [options] APP}: Uvicorn's command line. The options are {@link ApxConfig}'s settings
 * ({@link ConfigMapper} maps them, each option's {@code descriptionKey} names its setting, whose meaning
 * and default {@link OptionGroups} shows); every option can also come from {@code APX_<NAME>}. This class
 * owns the process: a supervisor for {@code --workers}/{@code --reload}, else {@link Serve} with the
 * signals, and the exit code.
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
    @Parameters(paramLabel = "APP", descriptionKey = "app.spec")
    String app;

    @Option(names = "--factory", descriptionKey = "app.factory")
    boolean factory;

    @Option(names = "--app-dir", paramLabel = "DIR", defaultValue = Defaults.APP_DIR, descriptionKey = "app.appDir")
    Path appDir;

    @Option(names = "--host", paramLabel = "HOST", defaultValue = Defaults.HOST, descriptionKey = "bind.host")
    String host;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "" + Defaults.PORT, descriptionKey = "bind.port")
    int port;

    @Option(names = "--uds", paramLabel = "PATH", descriptionKey = "bind.uds")
    Path uds;

    @Option(names = "--loop", paramLabel = "[auto|asyncio|uvloop]", converter = Choice.Loop.class, descriptionKey = "runtime.loop")
    LoopKind loop = Defaults.LOOP;

    @Option(names = "--io", paramLabel = "[loop|threads]", converter = Choice.Io.class, descriptionKey = "runtime.io")
    IoMode ioMode = Defaults.IO;

    @Option(names = "--lifespan", paramLabel = "[auto|on|off]", converter = Choice.LifespanMode.class, descriptionKey = "app.lifespan")
    LifespanMode lifespan = LifespanMode.AUTO;

    @Option(names = "--root-path", paramLabel = "PATH", defaultValue = Defaults.ROOT_PATH, descriptionKey = "app.rootPath")
    String rootPath;

    @Option(names = "--proxy-headers", negatable = true, defaultValue = "" + Defaults.PROXY_HEADERS, fallbackValue = "true", descriptionKey = "app.proxyHeaders")
    boolean proxyHeaders;

    @Option(names = "--forwarded-allow-ips", paramLabel = "IPS", descriptionKey = "app.forwardedAllowIps")
    String forwardedAllowIps;

    @Option(names = "--timeout-keep-alive", defaultValue = "" + Defaults.TIMEOUT_KEEP_ALIVE, paramLabel = "SECONDS", descriptionKey = "limits.keepAliveTimeout")
    int timeoutKeepAlive;

    @Option(names = "--slow-callback-duration", paramLabel = "SECONDS", defaultValue = "" + Defaults.SLOW_CALLBACK_DURATION, descriptionKey = "runtime.slowCallbackDuration")
    double slowCallbackDuration;

    @Option(names = "--gc-threshold", paramLabel = "N", defaultValue = "" + Defaults.GC_THRESHOLD, descriptionKey = "runtime.gcThreshold")
    int gcThreshold;

    @Option(names = "--timeout-graceful-shutdown", paramLabel = "SECONDS", descriptionKey = "limits.gracefulShutdownTimeout")
    Integer timeoutGracefulShutdown;

    @Option(names = "--limit-concurrency", paramLabel = "N", descriptionKey = "limits.concurrency")
    Integer limitConcurrency;

    @Option(names = "--backlog", paramLabel = "N", defaultValue = "" + Defaults.BACKLOG, descriptionKey = "bind.backlog")
    int backlog;

    @Option(names = "--limit-max-requests", paramLabel = "N", descriptionKey = "limits.maxRequests")
    Long limitMaxRequests;

    @Option(names = "--limit-request-line", paramLabel = "BYTES", defaultValue = "" + Defaults.LIMIT_REQUEST_LINE, descriptionKey = "limits.requestLine")
    int limitRequestLine;

    @Option(names = "--limit-request-fields", paramLabel = "N", defaultValue = "" + Defaults.LIMIT_REQUEST_FIELDS, descriptionKey = "limits.requestFields")
    int limitRequestFields;

    @Option(names = "--limit-request-field-size", paramLabel = "BYTES", defaultValue = "" + Defaults.LIMIT_REQUEST_FIELD_SIZE, descriptionKey = "limits.requestFieldSize")
    int limitRequestFieldSize;

    @Option(names = "--limit-request-headers", paramLabel = "BYTES", defaultValue = "" + Defaults.LIMIT_REQUEST_HEADERS, descriptionKey = "limits.requestHeaders")
    int limitRequestHeaders;

    @Option(names = "--limit-max-body", paramLabel = "BYTES", descriptionKey = "limits.maxBody")
    Long limitMaxBody;

    @Option(names = "--timeout-request-header", paramLabel = "SECONDS", defaultValue = "" + Defaults.TIMEOUT_REQUEST_HEADER, descriptionKey = "limits.requestHeaderTimeout")
    int timeoutRequestHeader;

    @Option(names = "--timeout-request-body", paramLabel = "SECONDS", defaultValue = "" + Defaults.TIMEOUT_REQUEST_BODY, descriptionKey = "limits.requestBodyTimeout")
    int timeoutRequestBody;

    @Option(names = "--timeout-write", paramLabel = "SECONDS", defaultValue = "" + Defaults.TIMEOUT_WRITE, descriptionKey = "limits.writeTimeout")
    int timeoutWrite;

    @Option(names = "--log-level", paramLabel = "[critical|error|warning|info|debug|trace]",
            converter = Choice.Level.class, descriptionKey = "logging.level")
    LogLevel logLevel; // null when not given: --log-config's levels then stay, as with Uvicorn

    @Option(names = "--access-log", negatable = true, defaultValue = "" + Defaults.ACCESS_LOG, fallbackValue = "true", descriptionKey = "logging.accessLog")
    boolean accessLog;

    @Option(names = "--server-header", negatable = true, defaultValue = "" + Defaults.SERVER_HEADER, fallbackValue = "true", descriptionKey = "http.serverHeader")
    boolean serverHeader;

    @Option(names = "--date-header", negatable = true, defaultValue = "" + Defaults.DATE_HEADER, fallbackValue = "true", descriptionKey = "http.dateHeader")
    boolean dateHeader;

    @Option(names = "--env-file", paramLabel = "PATH", descriptionKey = "app.envFile")
    Path envFile;

    // ---- WSGI and ASGI 2 (dev.apx.wsgi, _apx._interface)

    @Option(names = "--interface", paramLabel = "[auto|asgi3|asgi2|wsgi]", converter = Choice.InterfaceKind.class, descriptionKey = "app.appInterface")
    Interface appInterface = Interface.AUTO;

    @Option(names = "--blocking-threads", paramLabel = "N", defaultValue = "" + Defaults.BLOCKING_THREADS, descriptionKey = "runtime.blockingThreads")
    int blockingThreads;

    @CommandLine.Mixin
    WebSocketOptions webSockets = new WebSocketOptions();

    @Option(names = "--warmup", paramLabel = "REQUESTS", defaultValue = "" + Defaults.WARMUP, descriptionKey = "warmup.requests")
    int warmup;

    @Option(names = "--warmup-mode", paramLabel = "[idle|before]", converter = Choice.Warmup.class, descriptionKey = "warmup.mode")
    WarmupMode warmupMode = Defaults.WARMUP_MODE;

    // --- processes and reload: see dev.apx.supervisor
    @Option(names = "--fd", paramLabel = "N", descriptionKey = "bind.fd")
    Integer fd;

    @Option(names = "--workers", paramLabel = "N", descriptionKey = "workers.workers")
    Integer workers;

    @Option(names = "--interpreters", paramLabel = "N", defaultValue = "" + Defaults.INTERPRETERS, descriptionKey = "runtime.interpreters")
    int interpreters;

    @Option(names = "--limit-max-requests-jitter", paramLabel = "N", defaultValue = "" + Defaults.LIMIT_MAX_REQUESTS_JITTER, descriptionKey = "limits.maxRequestsJitter")
    int limitMaxRequestsJitter;

    @Option(names = "--timeout-worker-healthcheck", paramLabel = "SECONDS", defaultValue = "" + Defaults.TIMEOUT_WORKER_HEALTHCHECK, descriptionKey = "workers.healthcheckTimeout")
    int timeoutWorkerHealthcheck;

    @Option(names = "--reload", descriptionKey = "workers.reload")
    boolean reload;

    @Option(names = "--reload-dir", paramLabel = "PATH", descriptionKey = "workers.reloadDirs")
    List<Path> reloadDirs = new ArrayList<>();

    @Option(names = "--reload-include", paramLabel = "GLOB", descriptionKey = "workers.reloadIncludes")
    List<String> reloadIncludes = new ArrayList<>();

    @Option(names = "--reload-exclude", paramLabel = "GLOB", descriptionKey = "workers.reloadExcludes")
    List<String> reloadExcludes = new ArrayList<>();

    @Option(names = "--reload-delay", paramLabel = "SECONDS", defaultValue = "" + Defaults.RELOAD_DELAY, descriptionKey = "workers.reloadDelay")
    double reloadDelay;

    @Option(names = "--header", paramLabel = "NAME:VALUE", descriptionKey = "http.headers")
    List<String> headers = new ArrayList<>();

    @Option(names = "--use-colors", negatable = true, descriptionKey = "logging.useColors")
    Boolean useColors;

    @Option(names = "--h11-max-incomplete-event-size", paramLabel = "BYTES", description = {"Uvicorn's name for --limit-request-headers.",
                    "Accepted for Uvicorn's command lines."}, descriptionKey = "limits.requestHeaders")
    Integer h11MaxIncompleteEventSize;

    // --- logging through Python: see serve/LogConfig
    @Option(names = "--log-config", paramLabel = "PATH", descriptionKey = "logging.config")
    Path logConfig;

    @Option(names = "--reset-contextvars", descriptionKey = "app.resetContextvars")
    boolean resetContextvars;

    private String[] rawArgs = new String[0];

    @CommandLine.Mixin
    MetricsOptions metrics = new MetricsOptions();

    @CommandLine.Mixin
    ProtocolOptions protocolOptions = new ProtocolOptions();

    @Option(names = "--python", paramLabel = "PATH", descriptionKey = "runtime.python")
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
            Log.setLevel(logLevel != null ? Log.Level.valueOf(logLevel.name()) : Log.Level.INFO);
            Log.setColors(useColors != null ? useColors : System.console() != null && System.console().isTerminal());
            ExtraHeaders.set(headers);
            ApxConfig config = ConfigMapper.toConfig(this);
            Serve.check(config); // before Python (and before any worker) starts
            return superviseOrServe(config);
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

    /**
     * The configuration {@code args} give, as the command line reads them but without the
     * environment's {@code APX_*} variables: for Java code that holds a command line.
     *
     * @param args the command line's arguments, e.g. {@code "--port", "0", "main:app"}
     * @return the configuration
     * @throws IllegalArgumentException a bad flag or value (the message is the command line's)
     */
    public static ApxConfig toConfig(String... args) {
        Main main = new Main();
        try {
            new CommandLine(main).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException("apx: " + e.getMessage(), e);
        }
        return ConfigMapper.toConfig(main);
    }

    /** A supervisor ({@code --reload}, {@code --workers} > 1) above the workers, or this process serves (a worker is one too). */
    private int superviseOrServe(ApxConfig config) {
        int processes = processes();
        WorkerLink workerLink = WorkerLink.fromEnvironment(System.getenv()).orElse(null);
        if (workerLink == null && (reload || processes > 1)) {
            if (reload) {
                if (processes > 1) {
                    Log.warning("\"workers\" flag is ignored when reloading is enabled.");
                }
                Signals.takeEvenIfIgnored(Reloader.SIGNALS.toArray(String[]::new));
                return new Reloader(rawArgs, ReloadDirs.watched(reloadDirs), reloadIncludes, reloadExcludes, reloadDelay)
                        .run(host, port, uds, fd, backlog);
            }
            Signals.takeEvenIfIgnored(Supervisor.SIGNALS.toArray(String[]::new));
            return new Supervisor(rawArgs, processes, timeoutWorkerHealthcheck, ServeConfigs.metrics(config.metrics(), System.getenv()))
                    .run(host, port, uds, fd, backlog);
        }
        if (workerLink == null && (!reloadDirs.isEmpty() || !reloadIncludes.isEmpty() || !reloadExcludes.isEmpty())) {
            Log.warning("Current configuration will not reload as not all conditions are met, please refer to documentation.");
        }
        // a worker of a --workers N > 1 supervisor (it has the supervisor's arguments and its socket in the environment)
        boolean oneOfSeveral = workerLink != null && !reload && processes > 1;
        return new Serve(config, new ProcessRole(workerLink, oneOfSeveral, stop -> {
            Signals.handle("INT", stop);
            Signals.handle("TERM", stop);
        })).run();
    }

    /** --workers, else $WEB_CONCURRENCY, else 1; 0 means 1, as Uvicorn's {@code workers or 1}. */
    private int processes() {
        if (workers != null) {
            return Math.max(1, workers); // checked by the configuration: 0 or more
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
}
