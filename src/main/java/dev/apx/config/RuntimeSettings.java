package dev.apx.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The embedded CPython: which one, how many runtimes, their event loop and threads.
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param python the Python whose packages the app uses; null: $VIRTUAL_ENV or python3
 * @param interpreters python runtimes, each with its GIL; default {@link Defaults#INTERPRETERS}
 * @param loop event loop implementation; default {@link Defaults#LOOP}
 * @param io which threads do socket I/O; default {@link Defaults#IO}
 * @param blockingThreads threads that run a WSGI app; default {@link Defaults#BLOCKING_THREADS}
 * @param gcThreshold python's gen-0 gc threshold; default {@link Defaults#GC_THRESHOLD}
 * @param slowCallbackDuration warn of a loop blocked this long; in seconds, default {@link Defaults#SLOW_CALLBACK_DURATION}
 */
public record RuntimeSettings(Path python, int interpreters, LoopKind loop, IoMode io, int blockingThreads,
                              int gcThreshold, double slowCallbackDuration) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public RuntimeSettings {
        Objects.requireNonNull(loop, "loop");
        Objects.requireNonNull(io, "io");
        if (gcThreshold < 0) {
            throw new IllegalArgumentException("--gc-threshold must be 0 (CPython's own) or more, got " + gcThreshold);
        }
        if (!(slowCallbackDuration >= 0)) {
            throw new IllegalArgumentException("--slow-callback-duration must be 0 or more seconds, got " + slowCallbackDuration);
        }
        if (interpreters < 1 || interpreters > 16) {
            throw new IllegalArgumentException("--interpreters must be 1 to 16 (glibc has 16 link-map namespaces), got " + interpreters);
        }
        if (interpreters > 1 && io == IoMode.LOOP) {
            throw new IllegalArgumentException("--io loop runs the sockets on one runtime's event loop; with --interpreters "
                    + interpreters + " use --io threads");
        }
        if (blockingThreads < 1) {
            throw new IllegalArgumentException("--blocking-threads must be at least 1, got " + blockingThreads);
        }
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
        builder.python = python;
        builder.interpreters = interpreters;
        builder.loop = loop;
        builder.io = io;
        builder.blockingThreads = blockingThreads;
        builder.gcThreshold = gcThreshold;
        builder.slowCallbackDuration = slowCallbackDuration;
        return builder;
    }

    /** Builds a {@link RuntimeSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private Path python = null;
        private int interpreters = Defaults.INTERPRETERS;
        private LoopKind loop = Defaults.LOOP;
        private IoMode io = Defaults.IO;
        private int blockingThreads = Defaults.BLOCKING_THREADS;
        private int gcThreshold = Defaults.GC_THRESHOLD;
        private double slowCallbackDuration = Defaults.SLOW_CALLBACK_DURATION;

        private Builder() {
        }

        /**
         * The Python whose packages the app uses.
         * apx embeds this interpreter's libpython (a shared build: pyenv with --enable-shared, or a
         * distribution's python3 with its libpython package) and imports the app with its sys.path.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder python(Path value) {
            this.python = value;
            return this;
        }

        /**
         * Python runtimes, each with its GIL.
         * 1 to 16. Each runtime has its own GIL, event loop, app import and lifespan, in a glibc link-map
         * namespace of its own; connections are spread over them at accept and stay on one
         * (docs/interpreters.md).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder interpreters(int value) {
            this.interpreters = value;
            return this;
        }

        /**
         * Event loop implementation.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder loop(LoopKind value) {
            this.loop = value;
            return this;
        }

        /**
         * Which threads do socket I/O.
         * threads: Netty's threads (one per core) read and write the sockets and hand each request to the loop
         * thread. loop: the asyncio loop's own thread does, as under Uvicorn, with no hand-off between threads
         * (docs/server.md).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder io(IoMode value) {
            this.io = value;
            return this;
        }

        /**
         * Threads that run a WSGI app.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder blockingThreads(int value) {
            this.blockingThreads = value;
            return this;
        }

        /**
         * Python's gen-0 gc threshold.
         * 0 keeps CPython's own. Set before the app is imported; an app's own gc.set_threshold wins. CPython's
         * default (700; 2000 on 3.13) makes apx's loop, which begins batches of requests at once, collect
         * about 30 times as often as Uvicorn's (docs/bridge.md).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder gcThreshold(int value) {
            this.gcThreshold = value;
            return this;
        }

        /**
         * Warn of a loop blocked this long.
         * The warning names the request whose handler ran this long without awaiting, as asyncio's debug mode
         * names slow callbacks; 0 turns it off.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder slowCallbackDuration(double value) {
            this.slowCallbackDuration = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public RuntimeSettings build() {
            return new RuntimeSettings(python, interpreters, loop, io, blockingThreads, gcThreshold, slowCallbackDuration);
        }
    }
}
