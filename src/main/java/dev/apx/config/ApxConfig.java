package dev.apx.config;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * apx's whole configuration, one immutable value grouped by concern: what the command line fills from
 * its flags and {@code APX_*} environment variables, and what {@code dev.apx.Apx#server} takes. Every
 * setting, with its flag, variable and default, is listed in docs/settings.md ({@link Settings}).
 *
 * <pre>{@code
 * ApxConfig config = ApxConfig.builder()
 *         .app(app -> app.spec("main:app").appDir(Path.of("/srv/app")))
 *         .bind(bind -> bind.port(0))
 *         .build();
 * }</pre>
 *
 * @param app the app and how it is loaded
 * @param bind where the server listens
 * @param http HTTP/1.1, HTTP/2 and the response headers apx adds
 * @param limits request limits and timeouts
 * @param tls HTTPS
 * @param webSockets WebSockets
 * @param runtime the embedded CPython runtimes
 * @param warmup the JIT warm-up at start
 * @param logging apx's log lines
 * @param metrics the Prometheus endpoint
 * @param workers worker processes and reload (command line only)
 */
public record ApxConfig(AppSettings app, BindSettings bind, HttpSettings http, LimitSettings limits, TlsSettings tls, WebSocketSettings webSockets, RuntimeSettings runtime, WarmupSettings warmup, LogSettings logging, MetricsSettings metrics, WorkerSettings workers) {
    /**
     * Checks that every group is given.
     *
     * @throws NullPointerException a group is null
     */
    public ApxConfig {
        Objects.requireNonNull(app, "app");
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(webSockets, "webSockets");
        Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(logging, "logging");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(workers, "workers");
    }

    /**
     * A builder with every setting at its default ({@link Defaults}); the app's {@code spec} must be set.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding this configuration's values.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.app = app.toBuilder();
        builder.bind = bind.toBuilder();
        builder.http = http.toBuilder();
        builder.limits = limits.toBuilder();
        builder.tls = tls.toBuilder();
        builder.webSockets = webSockets.toBuilder();
        builder.runtime = runtime.toBuilder();
        builder.warmup = warmup.toBuilder();
        builder.logging = logging.toBuilder();
        builder.metrics = metrics.toBuilder();
        builder.workers = workers.toBuilder();
        return builder;
    }

    /** Builds an {@link ApxConfig}: each group is changed in place through its own builder, then {@link #build} checks them all. */
    public static final class Builder {
        private AppSettings.Builder app = AppSettings.builder();
        private BindSettings.Builder bind = BindSettings.builder();
        private HttpSettings.Builder http = HttpSettings.builder();
        private LimitSettings.Builder limits = LimitSettings.builder();
        private TlsSettings.Builder tls = TlsSettings.builder();
        private WebSocketSettings.Builder webSockets = WebSocketSettings.builder();
        private RuntimeSettings.Builder runtime = RuntimeSettings.builder();
        private WarmupSettings.Builder warmup = WarmupSettings.builder();
        private LogSettings.Builder logging = LogSettings.builder();
        private MetricsSettings.Builder metrics = MetricsSettings.builder();
        private WorkerSettings.Builder workers = WorkerSettings.builder();

        private Builder() {
        }

        /**
         * Changes the app and how it is loaded: {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code app -> app.spec("main:app")}
         * @return this builder
         */
        public Builder app(Consumer<AppSettings.Builder> changes) {
            changes.accept(app);
            return this;
        }

        /**
         * Replaces the app and how it is loaded with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder app(AppSettings value) {
            app = value.toBuilder();
            return this;
        }

        /**
         * Changes where the server listens: {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code bind -> bind.port(0)}
         * @return this builder
         */
        public Builder bind(Consumer<BindSettings.Builder> changes) {
            changes.accept(bind);
            return this;
        }

        /**
         * Replaces where the server listens with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder bind(BindSettings value) {
            bind = value.toBuilder();
            return this;
        }

        /**
         * Changes HTTP/1.1, HTTP/2 and the response headers apx adds: {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code http -> ...}
         * @return this builder
         */
        public Builder http(Consumer<HttpSettings.Builder> changes) {
            changes.accept(http);
            return this;
        }

        /**
         * Replaces HTTP/1.1, HTTP/2 and the response headers apx adds with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder http(HttpSettings value) {
            http = value.toBuilder();
            return this;
        }

        /**
         * Changes request limits and timeouts: {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code limits -> ...}
         * @return this builder
         */
        public Builder limits(Consumer<LimitSettings.Builder> changes) {
            changes.accept(limits);
            return this;
        }

        /**
         * Replaces request limits and timeouts with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder limits(LimitSettings value) {
            limits = value.toBuilder();
            return this;
        }

        /**
         * Changes HTTPS: {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code tls -> ...}
         * @return this builder
         */
        public Builder tls(Consumer<TlsSettings.Builder> changes) {
            changes.accept(tls);
            return this;
        }

        /**
         * Replaces HTTPS with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder tls(TlsSettings value) {
            tls = value.toBuilder();
            return this;
        }

        /**
         * Changes WebSockets: {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code webSockets -> ...}
         * @return this builder
         */
        public Builder webSockets(Consumer<WebSocketSettings.Builder> changes) {
            changes.accept(webSockets);
            return this;
        }

        /**
         * Replaces WebSockets with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder webSockets(WebSocketSettings value) {
            webSockets = value.toBuilder();
            return this;
        }

        /**
         * Changes the embedded CPython runtimes: {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code runtime -> ...}
         * @return this builder
         */
        public Builder runtime(Consumer<RuntimeSettings.Builder> changes) {
            changes.accept(runtime);
            return this;
        }

        /**
         * Replaces the embedded CPython runtimes with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder runtime(RuntimeSettings value) {
            runtime = value.toBuilder();
            return this;
        }

        /**
         * Changes the JIT warm-up at start: {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code warmup -> ...}
         * @return this builder
         */
        public Builder warmup(Consumer<WarmupSettings.Builder> changes) {
            changes.accept(warmup);
            return this;
        }

        /**
         * Replaces the JIT warm-up at start with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder warmup(WarmupSettings value) {
            warmup = value.toBuilder();
            return this;
        }

        /**
         * Changes apx's log lines: {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code logging -> ...}
         * @return this builder
         */
        public Builder logging(Consumer<LogSettings.Builder> changes) {
            changes.accept(logging);
            return this;
        }

        /**
         * Replaces apx's log lines with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder logging(LogSettings value) {
            logging = value.toBuilder();
            return this;
        }

        /**
         * Changes the Prometheus endpoint: {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code metrics -> ...}
         * @return this builder
         */
        public Builder metrics(Consumer<MetricsSettings.Builder> changes) {
            changes.accept(metrics);
            return this;
        }

        /**
         * Replaces the Prometheus endpoint with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder metrics(MetricsSettings value) {
            metrics = value.toBuilder();
            return this;
        }

        /**
         * Changes worker processes and reload (command line only): {@code changes} sets values on the group's builder.
         *
         * @param changes what to set, e.g. {@code workers -> ...}
         * @return this builder
         */
        public Builder workers(Consumer<WorkerSettings.Builder> changes) {
            changes.accept(workers);
            return this;
        }

        /**
         * Replaces worker processes and reload (command line only) with {@code value}'s.
         *
         * @param value the group
         * @return this builder
         */
        public Builder workers(WorkerSettings value) {
            workers = value.toBuilder();
            return this;
        }

        /**
         * The configuration as set.
         *
         * @return the configuration
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag, or no app
         */
        public ApxConfig build() {
            return new ApxConfig(app.build(), bind.build(), http.build(), limits.build(), tls.build(), webSockets.build(), runtime.build(), warmup.build(), logging.build(), metrics.build(), workers.build());
        }
    }
}
