package dev.apx.metrics;

import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeStats;
import dev.apx.bridge.RequestObserver;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;

/**
 * The bridges' series, one child per runtime slot of {@code --interpreters} ({@code interpreter="0"..}):
 * each bridge's own counters ({@link BridgeStats}, LongAdders it keeps anyway, read at scrape time)
 * and two histograms observed once per coroutine when it ends.
 *
 * <p>A reload puts a fresh bridge into a slot. The slot's counters add the replaced bridges' counts
 * to the live one's (their BridgeStats are kept, and go on counting while they drain), so they never
 * go back; its histograms are the slot's own children, observed by every bridge it had; the in-flight
 * gauge is the live bridge's.
 */
final class BridgeMetrics {
    static final double[] HOP_BUCKETS = {1, 2, 3, 4, 6, 8, 12, 16, 32, 64};
    static final double[] SUSPENSION_BUCKETS = {0, 1, 2, 3, 4, 6, 8, 16, 32, 64, 128};

    private final Histogram hops;
    private final Histogram suspensions;
    private final Map<Integer, Slot> slots = new ConcurrentSkipListMap<>(); // sorted: the children in slot order

    /** One runtime slot: every bridge it had, the live one last. */
    private static final class Slot implements RequestObserver {
        final String label;
        final List<BridgeStats> stats = new CopyOnWriteArrayList<>();
        volatile Bridge live;
        final DistributionDataPoint hops;
        final DistributionDataPoint suspensions;

        Slot(String label, Histogram hops, Histogram suspensions) {
            this.label = label;
            this.hops = hops.labelValues(label);
            this.suspensions = suspensions.labelValues(label);
        }

        long sum(ToLongFunction<BridgeStats> read) {
            long total = 0;
            for (BridgeStats bridge : stats) {
                total += read.applyAsLong(bridge);
            }
            return total;
        }

        @Override
        public void finished(int hopCount, int suspensionCount) {
            hops.observe(hopCount);
            suspensions.observe(suspensionCount);
        }
    }

    BridgeMetrics(PrometheusRegistry registry, Labels labels) {
        hops = Histogram.builder().name("apx_bridge_hops")
                .help("Threads a request's task ran on: 1 where it began, 2 when it began on a server thread and the loop thread finished it")
                .labelNames(Metrics.INTERPRETER).classicOnly().classicUpperBounds(HOP_BUCKETS).constLabels(labels).withoutExemplars()
                .register(registry);
        suspensions = Histogram.builder().name("apx_bridge_suspensions")
                .help("1 when a request's first step left it waiting and asyncio's task finished it, 0 when it ended in its first step")
                .labelNames(Metrics.INTERPRETER).classicOnly().classicUpperBounds(SUSPENSION_BUCKETS).constLabels(labels).withoutExemplars()
                .register(registry);
        counter(registry, labels, "apx_bridge_coroutines", "Coroutines started by the bridge (requests, WebSocket sessions, lifespan)",
                BridgeStats::requestsDriven);
        counter(registry, labels, "apx_bridge_step_lock_waits",
                "Times the loop thread, back from select, waited for an I/O thread's drive to end", BridgeStats::deferredByStepLock);
        counter(registry, labels, "apx_bridge_enter_task_collisions",
                "'Cannot enter into task' errors (expected 0: the step lock makes them impossible)", BridgeStats::enterTaskCollisions);
        counter(registry, labels, "apx_bridge_stalls", "Times the watchdog found the loop asleep in select with work queued, and woke it",
                BridgeStats::stallsDetected);
        counter(registry, labels, "apx_bridge_pokes", "Wake-ups sent to the loop because a drive on an I/O thread queued loop work",
                BridgeStats::pokes);
        counter(registry, labels, "apx_bridge_loop_errors", "Errors reported to the event loop's exception handler",
                BridgeStats::loopErrors);
        counter(registry, labels, "apx_bridge_slow_drives", "Drives that ran past --slow-callback-duration without awaiting",
                BridgeStats::slowDrives);
        GaugeWithCallback.builder().name("apx_bridge_coroutines_in_flight").help("Coroutines the bridge drives that have not ended")
                .labelNames(Metrics.INTERPRETER).constLabels(labels).callback(callback -> {
                    for (Slot slot : slots.values()) {
                        Bridge live = slot.live; // null for the moment a slot is being made
                        if (live != null) {
                            callback.call(live.inFlight(), slot.label);
                        }
                    }
                }).register(registry);
    }

    private void counter(PrometheusRegistry registry, Labels labels, String name, String help, ToLongFunction<BridgeStats> read) {
        CounterWithCallback.builder().name(name).help(help).labelNames(Metrics.INTERPRETER).constLabels(labels)
                .callback(callback -> {
                    for (Slot slot : slots.values()) {
                        callback.call(slot.sum(read), slot.label);
                    }
                }).register(registry);
    }

    /** {@code bridge} serves slot {@code slot} from now on (at start, or in place of the one a reload replaced). */
    void watch(int slot, Bridge bridge) {
        Slot watched = slots.computeIfAbsent(slot, s -> new Slot(String.valueOf(s), hops, suspensions));
        if (watched.live == bridge) {
            return;
        }
        watched.stats.add(bridge.stats());
        watched.live = bridge; // the old bridge keeps reporting its last coroutines to the slot while it drains
        bridge.observe(watched);
    }
}
