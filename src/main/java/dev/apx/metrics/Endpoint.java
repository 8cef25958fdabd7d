package dev.apx.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The library's HTTP server for a registry at {@code --metrics-host:--metrics-port}, on two daemon
 * threads of its own: scrapes are rare, they must never keep the process alive, and a slow one
 * (the supervisor's waits on its workers) never holds up anything else.
 */
record Endpoint(HTTPServer server, ExecutorService scrapers) implements AutoCloseable {
    static Endpoint serve(MetricsConfig config, PrometheusRegistry registry) {
        ExecutorService scrapers = Executors.newFixedThreadPool(2, Thread.ofPlatform().name("apx-metrics-", 0).daemon(true).factory());
        try {
            return new Endpoint(HTTPServer.builder().hostname(config.host()).port(config.port()).registry(registry)
                    .executorService(scrapers).buildAndStart(), scrapers);
        } catch (IOException e) {
            scrapers.shutdownNow();
            throw new UncheckedIOException("cannot serve metrics on " + config.host() + ":" + config.port() + ": " + e.getMessage(), e);
        }
    }

    int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.close();
        scrapers.shutdownNow();
    }
}
