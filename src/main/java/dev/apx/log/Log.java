package dev.apx.log;

import java.io.PrintStream;

/**
 * apx's own log lines, and where they go: to SLF4J when apx runs inside a host's JVM (the
 * library, the default), or as Uvicorn's lines ({@code INFO:     message}) on the command line:
 * server and error lines on stderr, access lines on stdout. One process-wide level.
 *
 * <p>The command line ({@code cli.Main}) chooses the console before anything logs; a host can ask
 * for it with {@code -Dapx.log=console}. Through SLF4J, server lines are records of the logger
 * {@code dev.apx} and access lines of {@code dev.apx.access}; Python's {@code logging} records go to
 * loggers of their own names ({@link #python}). See docs/logging.md, "apx as a library".
 *
 * <p>With {@code --log-config} a {@link Sink} takes every line instead (Python's {@code logging},
 * as Uvicorn's {@code uvicorn.error} and {@code uvicorn.access} records); without one, a line costs
 * what it did before: no Python.
 */
public final class Log {
    public enum Level { TRACE, DEBUG, INFO, WARNING, ERROR, CRITICAL }

    /** Where lines go when no {@link Sink} takes them. */
    public enum Output { SLF4J, CONSOLE }

    /** The system property a host sets to {@code console} to keep Uvicorn's lines on stderr/stdout. */
    public static final String OUTPUT_PROPERTY = "apx.log";

    /** Where lines go instead of stderr/stdout. Called on any thread; must not throw. */
    public interface Sink {
        /** A server line, for {@code uvicorn.error}. */
        void server(Level level, String message);

        /** An HTTP access record, with the arguments of Uvicorn's access log line. */
        void access(String client, String method, String pathWithQuery, String httpVersion, int status);
    }

    // null until set: INFO on the console; through SLF4J, the backend's levels alone decide
    private static volatile Level level;
    private static volatile boolean colors;
    private static volatile Sink sink;
    private static volatile Output output; // chosen on first use: the command line sets it before, a host's JVM reads the property

    private Log() {
    }

    /** The command line's choice, made before anything logs: Uvicorn's lines on stderr/stdout. */
    public static void useConsole() {
        output = Output.CONSOLE;
    }

    /**
     * Where lines go: the console when the command line chose it or {@code -Dapx.log=console} asks
     * for it, else SLF4J, unless no SLF4J provider is on the class path (SLF4J would drop every
     * line, the app's tracebacks with them): then the console, as the command line writes it.
     */
    public static Output output() {
        Output chosen = output;
        if (chosen == null) {
            chosen = output = outputFromProperty();
        }
        return chosen;
    }

    private static Output outputFromProperty() {
        String value = System.getProperty(OUTPUT_PROPERTY, "").strip();
        if (value.equalsIgnoreCase("console")) {
            return Output.CONSOLE;
        }
        if (!Slf4jLines.hasProvider()) {
            return Output.CONSOLE;
        }
        if (!value.isEmpty() && !value.equalsIgnoreCase("slf4j")) {
            Slf4jLines.server(Level.WARNING, "apx: -D" + OUTPUT_PROPERTY + "=" + value
                    + " is neither slf4j nor console; apx logs through SLF4J", null);
        }
        return Output.SLF4J;
    }

    public static void setLevel(Level newLevel) {
        level = newLevel;
    }

    /** Sends every line at {@code newLevel} or above to {@code newSink} from now on; null: back to the {@link #output}. */
    public static void route(Sink newSink, Level newLevel) {
        sink = newSink;
        level = newLevel;
    }

    /** {@code --use-colors}: the level name in Uvicorn's colors (ANSI), as its DefaultFormatter does. */
    public static void setColors(boolean enabled) {
        colors = enabled;
    }

    public static void debug(String message) {
        log(Level.DEBUG, System.err, message, null);
    }

    public static void info(String message) {
        log(Level.INFO, System.err, message, null);
    }

    public static void warning(String message) {
        log(Level.WARNING, System.err, message, null);
    }

    public static void error(String message) {
        log(Level.ERROR, System.err, message, null);
    }

    /** An error with the Java stack trace of {@code cause} (a bug in apx, not in the app). */
    public static void error(String message, Throwable cause) {
        log(Level.ERROR, System.err, message, cause);
    }

    /** An HTTP access line: {@code client - "METHOD path HTTP/version" status}, as Uvicorn's. */
    public static void access(String client, String method, String pathWithQuery, String httpVersion, int status) {
        Sink to = sink;
        if (to != null) {
            to.access(client, method, pathWithQuery, httpVersion, status);
        } else if (passes(Level.INFO)) {
            if (output() == Output.SLF4J) {
                Slf4jLines.access(client, method, pathWithQuery, httpVersion, status);
            } else {
                console(Level.INFO, System.out, client + " - \"" + method + " " + pathWithQuery + " HTTP/" + httpVersion + "\" " + status);
            }
        }
    }

    /** Any other access line (a WebSocket's): Uvicorn logs those on {@code uvicorn.error}. */
    public static void access(String message) {
        log(Level.INFO, System.out, message, null);
    }

    /**
     * A record of Python's {@code logging} (library mode): to the SLF4J logger {@code name}, at the
     * level {@code pythonLevel} maps to; {@code text} is the formatted record, traceback included.
     */
    public static void python(String name, int pythonLevel, String text) {
        Slf4jLines.python(name, pythonLevel, text);
    }

    /** The lowest Python level that the SLF4J logger {@code name} passes ({@code Integer.MAX_VALUE}: none). */
    public static int pythonThreshold(String name) {
        return Slf4jLines.pythonThreshold(name);
    }

    private static boolean passes(Level at) {
        Level min = level;
        return min == null ? output() == Output.SLF4J || at.ordinal() >= Level.INFO.ordinal() : at.ordinal() >= min.ordinal();
    }

    private static String color(Level at) {
        return switch (at) {
            case TRACE -> "\u001b[34m";
            case DEBUG -> "\u001b[36m";
            case INFO -> "\u001b[32m";
            case WARNING -> "\u001b[33m";
            case ERROR -> "\u001b[31m";
            case CRITICAL -> "\u001b[91m";
        };
    }

    private static void log(Level at, PrintStream stream, String message, Throwable cause) {
        Sink to = sink;
        if (to != null) {
            Level min = level;
            if (at.ordinal() >= (min == null ? Level.INFO : min).ordinal()) {
                to.server(at, cause == null ? message : message + "\n" + stackTrace(cause));
            }
        } else if (passes(at)) {
            if (output() == Output.SLF4J) {
                Slf4jLines.server(at, message, cause); // the backend prints the trace its own way
            } else {
                console(at, stream, cause == null ? message : message + "\n" + stackTrace(cause));
            }
        }
    }

    private static String stackTrace(Throwable cause) {
        java.io.StringWriter trace = new java.io.StringWriter();
        cause.printStackTrace(new java.io.PrintWriter(trace));
        return trace.toString().stripTrailing();
    }

    private static void console(Level at, PrintStream stream, String message) {
        String name = at.name() + ":";
        String padding = " ".repeat(Math.max(1, 10 - name.length()));
        stream.println((colors ? color(at) + at.name() + "\u001b[0m:" : name) + padding + message);
    }
}
