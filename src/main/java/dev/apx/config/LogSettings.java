package dev.apx.config;

import java.nio.file.Path;

/**
 * apx's log lines: their level, the access log, colors, and a Python logging config that takes them over.
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param level log level; null (the default): info, or the levels of the logging config file
 * @param config logging config file: .json, .yaml or .ini; null: unset, the default
 * @param accessLog log one line per request; default {@link Defaults#ACCESS_LOG}
 * @param useColors color the levels; null: on a terminal
 */
public record LogSettings(LogLevel level, Path config, boolean accessLog, Boolean useColors) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public LogSettings {
        // every value is valid
    }

    /**
     * A builder with every setting at its default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding this record's values.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.level = level;
        builder.config = config;
        builder.accessLog = accessLog;
        builder.useColors = useColors;
        return builder;
    }

    /** Builds a {@link LogSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private LogLevel level = null;
        private Path config = null;
        private boolean accessLog = Defaults.ACCESS_LOG;
        private Boolean useColors = null;

        private Builder() {
        }

        /**
         * Log level.
         * With --log-config and no --log-level, the file's levels stay.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder level(LogLevel value) {
            this.level = value;
            return this;
        }

        /**
         * Logging config file: .json, .yaml or .ini.
         * Read as Uvicorn reads it: .json and .yaml/.yml through logging.config.dictConfig, any other through
         * fileConfig. Server lines then go to the logger uvicorn.error, access lines to uvicorn.access.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder config(Path value) {
            this.config = value;
            return this;
        }

        /**
         * Log one line per request.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder accessLog(boolean value) {
            this.accessLog = value;
            return this;
        }

        /**
         * Color the levels.
         * Color the log level names.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder useColors(Boolean value) {
            this.useColors = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public LogSettings build() {
            return new LogSettings(level, config, accessLog, useColors);
        }
    }
}
