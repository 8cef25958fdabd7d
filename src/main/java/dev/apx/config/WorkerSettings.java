package dev.apx.config;

import java.nio.file.Path;
import java.util.List;

/**
 * Worker processes and reload, which the command line runs in processes of its own; {@code dev.apx.Apx#server}
 * refuses them.
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param workers worker processes (not with --reload); null: $WEB_CONCURRENCY or 1
 * @param reload reload when a watched file changes; default false
 * @param reloadDirs watch this directory (repeatable); null: .
 * @param reloadIncludes also watch these (repeatable); null: *.py
 * @param reloadExcludes ignore these files or dirs (repeatable); null: .*, .py[cod], .sw.*, ~*
 * @param reloadDelay seconds between checks; in seconds, default {@link Defaults#RELOAD_DELAY}
 * @param healthcheckTimeout replace a worker silent this long; in seconds, default {@link Defaults#TIMEOUT_WORKER_HEALTHCHECK}
 */
public record WorkerSettings(Integer workers, boolean reload, List<Path> reloadDirs, List<String> reloadIncludes,
                             List<String> reloadExcludes, double reloadDelay, int healthcheckTimeout) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public WorkerSettings {
        if (workers != null) {
            Checks.atLeast("--workers", workers, 0);
        }
        Checks.atLeast("--timeout-worker-healthcheck", healthcheckTimeout, 1);
        if (!(reloadDelay >= 0)) {
            throw new IllegalArgumentException("--reload-delay must be 0 or more seconds, got " + reloadDelay);
        }
        reloadDirs = List.copyOf(reloadDirs);
        reloadIncludes = List.copyOf(reloadIncludes);
        reloadExcludes = List.copyOf(reloadExcludes);
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
        builder.workers = workers;
        builder.reload = reload;
        builder.reloadDirs = reloadDirs;
        builder.reloadIncludes = reloadIncludes;
        builder.reloadExcludes = reloadExcludes;
        builder.reloadDelay = reloadDelay;
        builder.healthcheckTimeout = healthcheckTimeout;
        return builder;
    }

    /** Builds a {@link WorkerSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private Integer workers = null;
        private boolean reload = false;
        private List<Path> reloadDirs = List.of();
        private List<String> reloadIncludes = List.of();
        private List<String> reloadExcludes = List.of();
        private double reloadDelay = Defaults.RELOAD_DELAY;
        private int healthcheckTimeout = Defaults.TIMEOUT_WORKER_HEALTHCHECK;

        private Builder() {
        }

        /**
         * Worker processes (not with --reload).
         * Each worker is a process with its own JVM and Python, all serving one socket; a supervisor replaces
         * a worker that dies or stops answering. 0 means 1, as with Uvicorn.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder workers(Integer value) {
            this.workers = value;
            return this;
        }

        /**
         * Reload when a watched file changes.
         * The new code loads into fresh Python runtimes of the running worker, or the worker restarts when
         * that cannot be done.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder reload(boolean value) {
            this.reload = value;
            return this;
        }

        /**
         * Watch this directory (repeatable).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder reloadDirs(List<Path> value) {
            this.reloadDirs = value;
            return this;
        }

        /**
         * Also watch these (repeatable).
         * A default named by --reload-exclude is dropped.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder reloadIncludes(List<String> value) {
            this.reloadIncludes = value;
            return this;
        }

        /**
         * Ignore these files or dirs (repeatable).
         * A default named by --reload-include is dropped.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder reloadExcludes(List<String> value) {
            this.reloadExcludes = value;
            return this;
        }

        /**
         * Seconds between checks.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder reloadDelay(double value) {
            this.reloadDelay = value;
            return this;
        }

        /**
         * Replace a worker silent this long.
         * A worker whose event loop does not answer the supervisor within this time is replaced.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder healthcheckTimeout(int value) {
            this.healthcheckTimeout = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public WorkerSettings build() {
            return new WorkerSettings(workers, reload, reloadDirs, reloadIncludes, reloadExcludes, reloadDelay, healthcheckTimeout);
        }
    }
}
