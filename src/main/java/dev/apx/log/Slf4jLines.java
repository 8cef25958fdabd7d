package dev.apx.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Log}'s lines and Python's {@code logging} records as SLF4J records, for apx inside a host's
 * JVM: the host's backend (Logback, Log4j 2) and its configuration decide levels, appenders and
 * format.
 *
 * <p>Python levels map as Python names them: below DEBUG (10) is TRACE, DEBUG is DEBUG, INFO INFO,
 * WARNING WARN, ERROR and CRITICAL (and above) ERROR; a level between two names takes the lower
 * one (15 is DEBUG).
 */
final class Slf4jLines {
    static final String SERVER_LOGGER = "dev.apx";
    static final String ACCESS_LOGGER = "dev.apx.access";
    private static final Logger SERVER = LoggerFactory.getLogger(SERVER_LOGGER);
    private static final Logger ACCESS = LoggerFactory.getLogger(ACCESS_LOGGER);

    private Slf4jLines() {
    }

    /** False when SLF4J found no provider and drops every record (its own warning says so on stderr). */
    static boolean hasProvider() {
        return !(LoggerFactory.getILoggerFactory() instanceof org.slf4j.helpers.NOPLoggerFactory);
    }

    static void server(Log.Level level, String message, Throwable cause) {
        switch (level) {
            case TRACE -> SERVER.trace(message, cause);
            case DEBUG -> SERVER.debug(message, cause);
            case INFO -> SERVER.info(message, cause);
            case WARNING -> SERVER.warn(message, cause);
            case ERROR, CRITICAL -> SERVER.error(message, cause);
        }
    }

    /** Uvicorn's access line; the five values are the record's arguments, for a structured encoder. */
    static void access(String client, String method, String pathWithQuery, String httpVersion, int status) {
        if (ACCESS.isInfoEnabled()) {
            ACCESS.info("{} - \"{} {} HTTP/{}\" {}", client, method, pathWithQuery, httpVersion, status);
        }
    }

    static void python(String name, int pythonLevel, String text) {
        Logger logger = logger(name);
        if (pythonLevel < 10) {
            logger.trace(text);
        } else if (pythonLevel < 20) {
            logger.debug(text);
        } else if (pythonLevel < 30) {
            logger.info(text);
        } else if (pythonLevel < 40) {
            logger.warn(text);
        } else {
            logger.error(text);
        }
    }

    static int pythonThreshold(String name) {
        Logger logger = logger(name);
        if (logger.isTraceEnabled()) {
            return Integer.MIN_VALUE;
        }
        return logger.isDebugEnabled() ? 10 : logger.isInfoEnabled() ? 20 : logger.isWarnEnabled() ? 30
                : logger.isErrorEnabled() ? 40 : Integer.MAX_VALUE;
    }

    /** Python's root logger is named {@code root}: SLF4J's is {@code ROOT}, which Logback and Log4j 2 map to their root. */
    private static Logger logger(String pythonName) {
        return LoggerFactory.getLogger(pythonName.equals("root") ? Logger.ROOT_LOGGER_NAME : pythonName);
    }
}
