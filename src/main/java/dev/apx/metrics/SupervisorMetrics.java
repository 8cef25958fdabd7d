package dev.apx.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * {@code --metrics} with {@code --workers}: the one endpoint at {@code --metrics-host:--metrics-port},
 * served by the supervisor. Each worker serves its own series on 127.0.0.1 (a free port it reports
 * on the control socket); a scrape here fetches them all ({@link WorkerScrape}) and adds the
 * supervisor's own: workers alive, restarts by reason, scrape success by worker. The library's HTTP
 * server writes them, negotiating text or OpenMetrics as the single-process endpoint does.
 */
public final class SupervisorMetrics implements AutoCloseable {
    /** Why a worker was replaced: the values of {@code apx_supervisor_worker_restarts_total{reason}}. */
    public enum Restart {
        /** It exited or was killed by a signal from outside. */
        DIED("died"),
        /** Its event loop did not answer the health check: the supervisor killed it. */
        HEALTHCHECK("healthcheck"),
        /** Past {@code --limit-max-requests}. */
        MAX_REQUESTS("max_requests"),
        /** SIGHUP. */
        RELOAD("reload");

        final String label;

        Restart(String label) {
            this.label = label;
        }
    }

    /** A worker as the supervisor knows it: its slot (the {@code worker} label) and its endpoint's port (0: not yet known). */
    public record Worker(int slot, int port) {
    }

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter restarts;
    private final WorkerScrape scrape;
    private final Endpoint endpoint;

    private SupervisorMetrics(MetricsConfig config, Supplier<List<Worker>> workers, IntSupplier alive) {
        GaugeWithCallback.builder().name("apx_supervisor_workers_alive").help("Worker processes running")
                .callback(callback -> callback.call(alive.getAsInt())).register(registry);
        restarts = Counter.builder().name("apx_supervisor_worker_restarts")
                .help("Workers replaced, by reason (died, healthcheck, max_requests, reload)").labelNames("reason")
                .withoutExemplars().register(registry);
        for (Restart reason : Restart.values()) {
            restarts.labelValues(reason.label); // every reason from the start, at 0: rate() sees the first one
        }
        scrape = new WorkerScrape(workers);
        registry.register(scrape);
        try { // a scrape waits on the workers on the endpoint's own threads, never on the supervisor's loop
            endpoint = Endpoint.serve(config, registry);
        } catch (RuntimeException e) {
            scrape.close();
            throw e;
        }
    }

    /**
     * Binds the endpoint. {@code workers}: the current worker of each slot (called on each scrape,
     * from the endpoint's threads); {@code alive}: how many worker processes run.
     */
    public static SupervisorMetrics start(MetricsConfig config, Supplier<List<Worker>> workers, IntSupplier alive) {
        return new SupervisorMetrics(config, workers, alive);
    }

    public int port() {
        return endpoint.port();
    }

    public void restarted(Restart reason) {
        restarts.labelValues(reason.label).inc();
    }

    @Override
    public void close() {
        endpoint.close();
        scrape.close();
    }
}
