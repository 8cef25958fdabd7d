package dev.apx.log;

import java.io.PrintStream;

/**
 * Uvicorn-style log lines ({@code INFO:     message}): server and error lines on stderr, access
 * lines on stdout. One process-wide level.
 *
 * <p>With {@code --log-config} a {@link Sink} takes every line instead (Python's {@code logging},
 * as Uvicorn's {@code uvicorn.error} and {@code uvicorn.access} records); without one, a line costs
 * what it did before: no Python.
 */
public final class Log {
    public enum Level { TRACE, DEBUG, INFO, WARNING, ERROR, CRITICAL }

    /** Where lines go instead of stderr/stdout. Called on any thread; must not throw. */
    public interface Sink {
        /** A server line, for {@code uvicorn.error}. */
        void server(Level level, String message);

        /** An HTTP access record, with the arguments of Uvicorn's access log line. */
        void access(String client, String method, String pathWithQuery, String httpVersion, int status);
    }

    private static volatile Level level = Level.INFO;
    private static volatile boolean colors;
    private static volatile Sink sink;

    private Log() {
    }

    public static void setLevel(Level newLevel) {
        level = newLevel;
    }

    /** Sends every line at {@code newLevel} or above to {@code newSink} from now on; null: back to stderr/stdout. */
    public static void route(Sink newSink, Level newLevel) {
        sink = newSink;
        level = newLevel;
    }

    /** {@code --use-colors}: the level name in Uvicorn's colors (ANSI), as its DefaultFormatter does. */
    public static void setColors(boolean enabled) {
        colors = enabled;
    }

    public static void debug(String message) {
        log(Level.DEBUG, System.err, message);
    }

    public static void info(String message) {
        log(Level.INFO, System.err, message);
    }

    public static void warning(String message) {
        log(Level.WARNING, System.err, message);
    }

    public static void error(String message) {
        log(Level.ERROR, System.err, message);
    }

    /** An error with the Java stack trace of {@code cause} (a bug in apx, not in the app). */
    public static void error(String message, Throwable cause) {
        java.io.StringWriter trace = new java.io.StringWriter();
        cause.printStackTrace(new java.io.PrintWriter(trace));
        log(Level.ERROR, System.err, message + "\n" + trace.toString().stripTrailing());
    }

    /** An HTTP access line: {@code client - "METHOD path HTTP/version" status}, as Uvicorn's. */
    public static void access(String client, String method, String pathWithQuery, String httpVersion, int status) {
        Sink to = sink;
        if (to != null) {
            to.access(client, method, pathWithQuery, httpVersion, status);
        } else if (level.ordinal() <= Level.INFO.ordinal()) {
            log(Level.INFO, System.out, client + " - \"" + method + " " + pathWithQuery + " HTTP/" + httpVersion + "\" " + status);
        }
    }

    /** Any other access line (a WebSocket's): Uvicorn logs those on {@code uvicorn.error}. */
    public static void access(String message) {
        log(Level.INFO, System.out, message);
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

    private static void log(Level at, PrintStream stream, String message) {
        if (at.ordinal() >= level.ordinal()) {
            Sink to = sink;
            if (to != null) {
                to.server(at, message);
                return;
            }
            String name = at.name() + ":";
            String padding = " ".repeat(Math.max(1, 10 - name.length()));
            stream.println((colors ? color(at) + at.name() + "\u001b[0m:" : name) + padding + message);
        }
    }
}
