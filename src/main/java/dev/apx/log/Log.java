package dev.apx.log;

import java.io.PrintStream;

/**
 * Uvicorn-style log lines ({@code INFO:     message}): server and error lines on stderr, access
 * lines on stdout. One process-wide level.
 */
public final class Log {
    public enum Level { TRACE, DEBUG, INFO, WARNING, ERROR, CRITICAL }

    private static volatile Level level = Level.INFO;

    private Log() {
    }

    public static void setLevel(Level newLevel) {
        level = newLevel;
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

    public static void access(String message) {
        log(Level.INFO, System.out, message);
    }

    private static void log(Level at, PrintStream stream, String message) {
        if (at.ordinal() >= level.ordinal()) {
            String name = at.name() + ":";
            stream.println(name + " ".repeat(Math.max(1, 10 - name.length())) + message);
        }
    }
}
