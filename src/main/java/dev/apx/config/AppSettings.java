package dev.apx.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The app and how it is loaded and called.
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param spec module:attribute of an ASGI or WSGI app; required
 * @param factory APP is a factory: call it to get the app; default false
 * @param appDir import APP from this directory; default {@link Defaults#APP_DIR}
 * @param appInterface ASGI 3, ASGI 2 or WSGI; default Interface.AUTO
 * @param lifespan lifespan implementation; default LifespanMode.AUTO
 * @param envFile environment for the app: KEY=VALUE lines; null: unset, the default
 * @param rootPath ASGI root_path: the app's mount prefix; default {@link Defaults#ROOT_PATH}
 * @param proxyHeaders use X-Forwarded-For and -Proto; default {@link Defaults#PROXY_HEADERS}
 * @param forwardedAllowIps proxies trusted for proxy headers; null: $FORWARDED_ALLOW_IPS or {@value Defaults#FORWARDED_ALLOW_IPS}
 * @param resetContextvars A fresh contextvars.Context per request; default false
 */
public record AppSettings(String spec, boolean factory, Path appDir, Interface appInterface, LifespanMode lifespan,
                          Path envFile, String rootPath, boolean proxyHeaders, String forwardedAllowIps,
                          boolean resetContextvars) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public AppSettings {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("the app is required: module:attribute, e.g. main:app");
        }
        Objects.requireNonNull(appDir, "appDir");
        Objects.requireNonNull(appInterface, "appInterface");
        Objects.requireNonNull(lifespan, "lifespan");
        Objects.requireNonNull(rootPath, "rootPath");
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
        builder.spec = spec;
        builder.factory = factory;
        builder.appDir = appDir;
        builder.appInterface = appInterface;
        builder.lifespan = lifespan;
        builder.envFile = envFile;
        builder.rootPath = rootPath;
        builder.proxyHeaders = proxyHeaders;
        builder.forwardedAllowIps = forwardedAllowIps;
        builder.resetContextvars = resetContextvars;
        return builder;
    }

    /** Builds a {@link AppSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private String spec = null;
        private boolean factory = false;
        private Path appDir = Path.of(Defaults.APP_DIR);
        private Interface appInterface = Interface.AUTO;
        private LifespanMode lifespan = LifespanMode.AUTO;
        private Path envFile = null;
        private String rootPath = Defaults.ROOT_PATH;
        private boolean proxyHeaders = Defaults.PROXY_HEADERS;
        private String forwardedAllowIps = null;
        private boolean resetContextvars = false;

        private Builder() {
        }

        /**
         * module:attribute of an ASGI or WSGI app.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder spec(String value) {
            this.spec = value;
            return this;
        }

        /**
         * APP is a factory: call it to get the app.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder factory(boolean value) {
            this.factory = value;
            return this;
        }

        /**
         * Import APP from this directory.
         * It goes first on sys.path before APP is imported.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder appDir(Path value) {
            this.appDir = value;
            return this;
        }

        /**
         * ASGI 3, ASGI 2 or WSGI.
         * auto picks asgi3 or asgi2 as Uvicorn does; a WSGI app (Flask, Django's WSGI handler) needs
         * --interface wsgi.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder appInterface(Interface value) {
            this.appInterface = value;
            return this;
        }

        /**
         * Lifespan implementation.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder lifespan(LifespanMode value) {
            this.lifespan = value;
            return this;
        }

        /**
         * Environment for the app: KEY=VALUE lines.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder envFile(Path value) {
            this.envFile = value;
            return this;
        }

        /**
         * ASGI root_path: the app's mount prefix.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder rootPath(String value) {
            this.rootPath = value;
            return this;
        }

        /**
         * Use X-Forwarded-For and -Proto.
         * Only from the addresses of --forwarded-allow-ips: they give the client's address and the scheme.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder proxyHeaders(boolean value) {
            this.proxyHeaders = value;
            return this;
        }

        /**
         * Proxies trusted for proxy headers.
         * Comma-separated addresses or networks (CIDR); '*' trusts every client.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder forwardedAllowIps(String value) {
            this.forwardedAllowIps = value;
            return this;
        }

        /**
         * A fresh contextvars.Context per request.
         * As Uvicorn does; it hides what the app's import set in contextvars. Without it, each request runs in
         * a copy of the context the app was imported in.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder resetContextvars(boolean value) {
            this.resetContextvars = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public AppSettings build() {
            return new AppSettings(spec, factory, appDir, appInterface, lifespan, envFile, rootPath, proxyHeaders, forwardedAllowIps, resetContextvars);
        }
    }
}
