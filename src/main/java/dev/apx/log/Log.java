package dev.apx.log;

import java.io.PrintStream;

/**
 * Uvicorn-style log lines ({@code INFO:     message}): server and error lines on stderr, access
 * lines on stdout. One process-wide level.
 */
public final class Log {
    public enum Level { TRACE, DEBUG, INFO, WARNING, ERROR, CRITICAL }

    private static volatile Level level = Level.INFO;
    private static volatile boolean colors;

    private Log() {
    }

    public static void setLevel(Level newLevel) {
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
            String name = at.name() + ":";
            String padding = " ".repeat(Math.max(1, 10 - name.length()));
            stream.println((colors ? color(at) + at.name() + "\u001b[0m:" : name) + padding + message);
        }
    }
}
