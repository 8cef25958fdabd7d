package dev.apx.server;

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
