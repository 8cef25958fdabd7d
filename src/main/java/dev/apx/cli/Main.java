package dev.apx.cli;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.Lifespan;
import dev.apx.asgi.TrustedHosts;
import dev.apx.bridge.LoopKind;
import dev.apx.python.PythonException;
import dev.apx.python.PythonSetupException;
import dev.apx.server.Limits;
import dev.apx.log.Log;
import dev.apx.server.ServerConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code apx [options] APP}: Uvicorn's command line, mapped onto {@link ServerConfig},
 * {@link AsgiConfig} and {@link Serve}. Every option can also come from {@code APX_<NAME>}.
 *
 * <p>Exit codes: 0 after a clean shutdown, 1 Python, the app or the socket could not be set up,
 * 2 bad usage, 3 the app's lifespan startup failed (as Uvicorn).
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

    @Option(names = "--timeout-write", paramLabel = "SECONDS", defaultValue = "60",
            description = "Close a connection whose client has read nothing of a waiting response for this long. Default: ${DEFAULT-VALUE}.")
    int timeoutWrite;

    @Option(names = "--log-level", defaultValue = "info", paramLabel = "[critical|error|warning|info|debug|trace]",
            converter = Choice.LogLevel.class, description = "Log level. Default: info.")
    Log.Level logLevel;

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

    @CommandLine.Mixin
    WebSocketOptions webSockets = new WebSocketOptions();

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
        CommandLine commandLine = new CommandLine(new Main());
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
            Log.setLevel(logLevel);
            if (!(slowCallbackDuration >= 0)) {
                throw new IllegalArgumentException("--slow-callback-duration must be 0 or more seconds, got " + slowCallbackDuration);
            }
            AppLoader.checkSpec(app);
            return new Serve(this).run();
        } catch (PythonSetupException | IllegalArgumentException | java.io.UncheckedIOException e) {
            System.err.println("apx: error: " + e.getMessage());
            return 1;
        } catch (PythonException e) {
            System.err.print(e.pythonTraceback());
            System.err.println("apx: error: cannot load app '" + app + "': " + e.getMessage());
            return 1;
        }
    }

    ServerConfig serverConfig() {
        ServerConfig d = ServerConfig.defaults();
        if (limitRequestLine <= 0 || limitRequestHeaders <= 0 || backlog <= 0) {
            throw new IllegalArgumentException("--limit-request-line, --limit-request-headers and --backlog must be at least 1");
        }
        Limits limits = new Limits(limitRequestFields, limitRequestFieldSize, limitMaxBody == null ? 0 : limitMaxBody,
                timeoutRequestHeader, timeoutWrite, limitMaxRequests == null ? 0 : limitMaxRequests);
        return new ServerConfig(host, port, uds, backlog, timeoutKeepAlive, limitConcurrency == null ? 0 : limitConcurrency,
                serverHeader, dateHeader, limitRequestLine, limitRequestHeaders, accessLog, d.workerThreads(), limits);
    }

    AsgiConfig asgiConfig() {
        String ips = forwardedAllowIps != null ? forwardedAllowIps
                : System.getenv().getOrDefault("FORWARDED_ALLOW_IPS", "127.0.0.1,::1");
        return new AsgiConfig(rootPath, proxyHeaders, TrustedHosts.parse(ips));
    }

}
