package dev.apx.cli;

import dev.apx.config.ApxConfig;

import java.util.function.Supplier;

/**
 * The command line's options onto {@link ApxConfig}: each option sets the setting its
 * {@code descriptionKey} names. A value the configuration refuses is a usage error ({@link BadFlag}),
 * named by its flag.
 */
final class ConfigMapper {
    private ConfigMapper() {
    }

    static ApxConfig toConfig(Main m) {
        if (m.h11MaxIncompleteEventSize != null && m.h11MaxIncompleteEventSize < 1) { // named as given
            throw new BadFlag("--h11-max-incomplete-event-size must be 1 or more, got " + m.h11MaxIncompleteEventSize);
        }
        ApxConfig.Builder config = ApxConfig.builder()
                .app(app -> app.spec(m.app).factory(m.factory).appDir(m.appDir).appInterface(m.appInterface).lifespan(m.lifespan)
                        .envFile(m.envFile).rootPath(m.rootPath).proxyHeaders(m.proxyHeaders).forwardedAllowIps(m.forwardedAllowIps)
                        .resetContextvars(m.resetContextvars))
                .bind(bind -> bind.host(m.host).port(m.port).uds(m.uds).fd(m.fd).backlog(m.backlog))
                .limits(limits -> limits.concurrency(m.limitConcurrency == null ? 0 : m.limitConcurrency)
                        .requestLine(m.limitRequestLine).requestFields(m.limitRequestFields).requestFieldSize(m.limitRequestFieldSize)
                        .requestHeaders(m.h11MaxIncompleteEventSize != null ? m.h11MaxIncompleteEventSize : m.limitRequestHeaders)
                        .maxBody(m.limitMaxBody == null ? 0 : m.limitMaxBody).maxRequests(m.limitMaxRequests == null ? 0 : m.limitMaxRequests)
                        .maxRequestsJitter(m.limitMaxRequestsJitter).keepAliveTimeout(m.timeoutKeepAlive)
                        .requestHeaderTimeout(m.timeoutRequestHeader).requestBodyTimeout(m.timeoutRequestBody).writeTimeout(m.timeoutWrite)
                        .gracefulShutdownTimeout(m.timeoutGracefulShutdown))
                .webSockets(m.webSockets.settings())
                .runtime(runtime -> runtime.python(m.python).interpreters(m.interpreters).loop(m.loop).io(m.ioMode)
                        .blockingThreads(m.blockingThreads).gcThreshold(m.gcThreshold).slowCallbackDuration(m.slowCallbackDuration))
                .warmup(warmup -> warmup.requests(m.warmup).mode(m.warmupMode))
                .logging(logging -> logging.level(m.logLevel).config(m.logConfig).accessLog(m.accessLog).useColors(m.useColors))
                .metrics(m.metrics.settings())
                .workers(workers -> workers.workers(m.workers).reload(m.reload).reloadDirs(m.reloadDirs).reloadIncludes(m.reloadIncludes)
                        .reloadExcludes(m.reloadExcludes).reloadDelay(m.reloadDelay).healthcheckTimeout(m.timeoutWorkerHealthcheck));
        m.protocolOptions.apply(config);
        config.http(http -> http.serverHeader(m.serverHeader).dateHeader(m.dateHeader).headers(m.headers));
        return checked(config::build);
    }

    /** {@code build}'s result; a value it refuses is a {@link BadFlag}. */
    static <T> T checked(Supplier<T> build) {
        try {
            return build.get();
        } catch (IllegalArgumentException e) {
            throw new BadFlag(e.getMessage()); // it names the flag
        }
    }
}
