package dev.apx.metrics;

import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeStats;
import dev.apx.bridge.RequestObserver;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.function.ToLongFunction;

/**
 * The bridge's series: its own counters ({@link BridgeStats}, LongAdders it keeps anyway, read at
 * scrape time) and two histograms observed once per coroutine when it ends.
 */
final class BridgeMetrics implements RequestObserver {
    static final double[] HOP_BUCKETS = {1, 2, 3, 4, 6, 8, 12, 16, 32, 64};
    static final double[] SUSPENSION_BUCKETS = {0, 1, 2, 3, 4, 6, 8, 16, 32, 64, 128};

    private final Histogram hops;
    private final Histogram suspensions;

    BridgeMetrics(PrometheusRegistry registry, Labels labels, Bridge bridge) {
        BridgeStats stats = bridge.stats();
        hops = Histogram.builder().name("apx_bridge_hops")
                .help("Threads a request's task ran on: 1 where it began, 2 when it began on a server thread and the loop thread finished it")
                .classicOnly().classicUpperBounds(HOP_BUCKETS).constLabels(labels).withoutExemplars().register(registry);
        suspensions = Histogram.builder().name("apx_bridge_suspensions")
                .help("1 when a request's first step left it waiting and asyncio's task finished it, 0 when it ended in its first step")
                .classicOnly().classicUpperBounds(SUSPENSION_BUCKETS).constLabels(labels).withoutExemplars().register(registry);
        counter(registry, labels, "apx_bridge_coroutines", "Coroutines started by the bridge (requests, WebSocket sessions, lifespan)",
                stats, BridgeStats::requestsDriven);
        counter(registry, labels, "apx_bridge_step_lock_waits",
                "Times the loop thread, back from select, waited for an I/O thread's drive to end", stats, BridgeStats::deferredByStepLock);
        counter(registry, labels, "apx_bridge_enter_task_collisions",
                "'Cannot enter into task' errors (expected 0: the step lock makes them impossible)", stats, BridgeStats::enterTaskCollisions);
        counter(registry, labels, "apx_bridge_stalls", "Times the watchdog found the loop asleep in select with work queued, and woke it",
                stats, BridgeStats::stallsDetected);
        counter(registry, labels, "apx_bridge_pokes", "Wake-ups sent to the loop because a drive on an I/O thread queued loop work",
                stats, BridgeStats::pokes);
        counter(registry, labels, "apx_bridge_loop_errors", "Errors reported to the event loop's exception handler",
                stats, BridgeStats::loopErrors);
        counter(registry, labels, "apx_bridge_slow_drives", "Drives that ran past --slow-callback-duration without awaiting",
                stats, BridgeStats::slowDrives);
        GaugeWithCallback.builder().name("apx_bridge_coroutines_in_flight").help("Coroutines the bridge drives that have not ended")
                .constLabels(labels).callback(callback -> callback.call(bridge.inFlight())).register(registry);
        bridge.observe(this);
    }

    private static void counter(PrometheusRegistry registry, Labels labels, String name, String help,
                                BridgeStats stats, ToLongFunction<BridgeStats> read) {
        CounterWithCallback.builder().name(name).help(help).constLabels(labels)
                .callback(callback -> callback.call(read.applyAsLong(stats))).register(registry);
    }

    @Override
    public void finished(int hopCount, int suspensionCount) {
        hops.observe(hopCount);
        suspensions.observe(suspensionCount);
    }
}
