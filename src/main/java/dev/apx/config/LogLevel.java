package dev.apx.config;

/** The level of apx's own log lines ({@code --log-level}), with Uvicorn's names. */
public enum LogLevel {
    /** Everything, including each connection's life. */
    TRACE,
    /** What apx decides, step by step. */
    DEBUG,
    /** Start, stop, and one line per request with the access log. */
    INFO,
    /** What looks wrong. */
    WARNING,
    /** Failures. */
    ERROR,
    /** Only what stops the server. */
    CRITICAL
}
