package dev.apx.metrics;

import dev.apx.bridge.Bridge;
import dev.apx.python.Interpreter;

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

/**
 * Python's series, one child per runtime slot of {@code --interpreters} ({@code interpreter="0"..}),
 * each read from the slot's {@link WatchedRuntime}s. A reload puts a fresh runtime into a slot: the
 * GC counters add the replaced runtimes' totals (the last they reported) to the live one's, so they
 * never go back; the histograms are the slot's own children; the gauges (ready queue, tasks) are
 * the live runtime's.
 */
final class PythonMetrics implements AutoCloseable {
    /** Seconds: an uncontended entry takes ~100 ns; a handler holding the GIL in sync code, up to seconds. */
    static final double[] GIL_BUCKETS = {0.000001, 0.0000025, 0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001,
            0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1};
    static final double[] LAG_BUCKETS = {0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    private static final String[] GENERATIONS = {"0", "1", "2"};

    private final Histogram gilWait;
    private final Histogram loopLag;
    private final Map<Integer, Slot> slots = new ConcurrentSkipListMap<>(); // sorted: the children in slot order

    /** One runtime slot: every runtime it had, the live one last. */
    private static final class Slot {
        final String label;
        final DistributionDataPoint serverWaits;
        final DistributionDataPoint probeWaits;
        final List<WatchedRuntime> runtimes = new CopyOnWriteArrayList<>();
        volatile WatchedRuntime live;

        Slot(String label, Histogram gilWait, Histogram loopLag) {
            this.label = label;
            serverWaits = gilWait.labelValues("server", label);
            probeWaits = gilWait.labelValues("probe", label);
        }
    }

    PythonMetrics(PrometheusRegistry registry, Labels labels) {
        gilWait = Histogram.builder().name("apx_python_gil_wait_seconds")
                .help("Time a Java thread waited to take the GIL: 'server' for apx's own entries (request drives on I/O "
                        + "threads, the loop thread back from the step lock), 'probe' for a thread that asks for it 4 times a second")
                .labelNames("thread", Metrics.INTERPRETER).classicOnly().classicUpperBounds(GIL_BUCKETS).constLabels(labels)
                .withoutExemplars().register(registry);
        loopLag = Histogram.builder().name("apx_python_loop_lag_seconds")
                .help("How late the event loop ran a timer that was due (sampled 4 times a second)")
                .labelNames(Metrics.INTERPRETER).classicOnly().classicUpperBounds(LAG_BUCKETS).constLabels(labels).withoutExemplars()
                .register(registry);
        GaugeWithCallback.builder().name("apx_python_loop_ready_callbacks")
                .help("Callbacks waiting in the asyncio loop's ready queue (absent with uvloop)").labelNames(Metrics.INTERPRETER)
                .constLabels(labels).callback(callback -> {
                    for (Slot slot : slots.values()) {
                        WatchedRuntime live = slot.live;
                        if (live != null && !Double.isNaN(live.ready())) {
                            callback.call(live.ready(), slot.label);
                        }
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("apx_python_tasks").help("asyncio tasks alive on the event loop (asyncio.all_tasks)")
                .labelNames(Metrics.INTERPRETER).constLabels(labels).callback(callback -> {
                    for (Slot slot : slots.values()) {
                        WatchedRuntime live = slot.live;
                        if (live != null && live.tasks() >= 0) {
                            callback.call(live.tasks(), slot.label);
                        }
                    }
                }).register(registry);
        CounterWithCallback.builder().name("apx_python_gc_collections").help("Garbage collections, by generation")
                .labelNames("generation", Metrics.INTERPRETER).constLabels(labels).callback(callback -> {
                    for (Slot slot : slots.values()) {
                        long[] sum = new long[3];
                        for (WatchedRuntime runtime : slot.runtimes) {
                            long[] counts = runtime.gc().collections();
                            for (int g = 0; g < 3; g++) {
                                sum[g] += counts[g];
                            }
                        }
                        for (int g = 0; g < 3; g++) {
                            callback.call(sum[g], GENERATIONS[g], slot.label);
                        }
                    }
                }).register(registry);
        CounterWithCallback.builder().name("apx_python_gc_pause_seconds")
                .help("Time spent in garbage collections (the GIL is held throughout), by generation")
                .labelNames("generation", Metrics.INTERPRETER).constLabels(labels).callback(callback -> {
                    for (Slot slot : slots.values()) {
                        double[] sum = new double[3];
                        for (WatchedRuntime runtime : slot.runtimes) {
                            double[] seconds = runtime.gc().pauses();
                            for (int g = 0; g < 3; g++) {
                                sum[g] += seconds[g];
                            }
                        }
                        for (int g = 0; g < 3; g++) {
                            callback.call(sum[g], GENERATIONS[g], slot.label);
                        }
                    }
                }).register(registry);
    }

    /**
     * The runtime {@code interpreter} serves slot {@code slot} from now on; {@code bridge} is its
     * event loop's, null for a WSGI app (no loop: GIL and GC only). The runtime it replaces stops
     * its probe.
     */
    void watch(int slot, Interpreter interpreter, Bridge bridge) {
        Slot watched = slots.computeIfAbsent(slot, s -> new Slot(String.valueOf(s), gilWait, loopLag));
        WatchedRuntime previous = watched.live;
        if (previous != null && previous.interpreter() == interpreter) {
            return;
        }
        DistributionDataPoint lag = bridge != null ? loopLag.labelValues(watched.label) : null; // no loop, no child
        WatchedRuntime fresh = new WatchedRuntime(interpreter, bridge, watched.label, watched.serverWaits, watched.probeWaits, lag);
        watched.runtimes.add(fresh);
        watched.live = fresh;
        if (previous != null) {
            previous.retire();
        }
    }

    @Override
    public void close() {
        for (Slot slot : slots.values()) {
            slot.runtimes.forEach(WatchedRuntime::close);
        }
    }
}
