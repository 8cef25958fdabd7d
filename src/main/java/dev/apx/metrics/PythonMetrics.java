package dev.apx.metrics;

import dev.apx.bridge.Bridge;
import dev.apx.log.Log;
import dev.apx.python.Gil;
import dev.apx.python.GilWaitObserver;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;

/**
 * Python's series. The GIL wait is timed in Java around each GIL entry of a Java thread (the
 * interpreter's {@link GilWaitObserver}). The rest comes from {@code _apx._metrics}: a timer on the
 * event loop reports the loop's lag, its ready queue, the tasks alive and the GC's totals a few
 * times a second, in one call on the loop thread, so a scrape never takes the GIL.
 */
final class PythonMetrics implements GilWaitObserver, AutoCloseable {
    /** Seconds: an uncontended entry takes ~100 ns; a handler holding the GIL in sync code, up to seconds. */
    static final double[] GIL_BUCKETS = {0.000001, 0.0000025, 0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001,
            0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1};
    static final double[] LAG_BUCKETS = {0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    private static final long PROBE_INTERVAL_MILLIS = 250;
    private static final String[] GENERATIONS = {"0", "1", "2"};

    private final Bridge bridge;
    private final Histogram gilWait;
    private final DistributionDataPoint serverWaits;
    private final DistributionDataPoint probeWaits;
    private final Histogram loopLag;
    private volatile double ready = Double.NaN; // NaN: the loop has no readable ready queue (uvloop)
    private final Thread probe;
    private final Gauge tasks;
    /** One report's counts and pause totals together: a scrape never pairs a new count with an old pause. */
    private record GcTotals(long[] collections, double[] pauses) {
    }

    private volatile GcTotals gc = new GcTotals(new long[3], new double[3]);
    private PyRef stop; // _apx._metrics.start's stop function; loop thread only

    PythonMetrics(PrometheusRegistry registry, Labels labels, Bridge bridge) {
        this.bridge = bridge;
        gilWait = Histogram.builder().name("apx_python_gil_wait_seconds")
                .help("Time a Java thread waited to take the GIL: 'server' for apx's own entries (request drives on I/O "
                        + "threads, the loop thread back from the step lock), 'probe' for a thread that asks for it 4 times a second")
                .labelNames("thread").classicOnly().classicUpperBounds(GIL_BUCKETS).constLabels(labels).withoutExemplars()
                .register(registry);
        serverWaits = gilWait.labelValues("server");
        probeWaits = gilWait.labelValues("probe");
        loopLag = Histogram.builder().name("apx_python_loop_lag_seconds")
                .help("How late the event loop ran a timer that was due (sampled 4 times a second)")
                .classicOnly().classicUpperBounds(LAG_BUCKETS).constLabels(labels).withoutExemplars().register(registry);
        GaugeWithCallback.builder().name("apx_python_loop_ready_callbacks")
                .help("Callbacks waiting in the asyncio loop's ready queue (absent with uvloop)").constLabels(labels)
                .callback(callback -> {
                    double now = ready;
                    if (!Double.isNaN(now)) {
                        callback.call(now);
                    }
                }).register(registry);
        tasks = Gauge.builder().name("apx_python_tasks").help("asyncio tasks alive on the event loop (asyncio.all_tasks)")
                .constLabels(labels).register(registry);
        CounterWithCallback.builder().name("apx_python_gc_collections").help("Garbage collections, by generation")
                .labelNames("generation").constLabels(labels).callback(callback -> {
                    long[] now = gc.collections();
                    for (int g = 0; g < 3; g++) {
                        callback.call(now[g], GENERATIONS[g]);
                    }
                }).register(registry);
        CounterWithCallback.builder().name("apx_python_gc_pause_seconds")
                .help("Time spent in garbage collections (the GIL is held throughout), by generation")
                .labelNames("generation").constLabels(labels).callback(callback -> {
                    double[] now = gc.pauses();
                    for (int g = 0; g < 3; g++) {
                        callback.call(now[g], GENERATIONS[g]);
                    }
                }).register(registry);
        bridge.interpreter().observeGilWaits(this);
        probe = Thread.ofPlatform().name("apx-metrics-gil-probe").daemon(true).start(this::probeGil);
        bridge.runOnLoop(gil -> {
            try (PyRef module = gil.importModule("_apx._metrics");
                 PyRef report = gil.function("apx_metrics_report", (g, args) -> {
                     report((Double) args.get(0), (Long) args.get(1), (Long) args.get(2), (Object[]) args.get(3), (Object[]) args.get(4));
                     return null;
                 })) {
                stop = module.callMethod(gil, "start", bridge.loop(), report);
            } catch (PythonException e) {
                Log.warning("apx: --metrics cannot watch the event loop: " + e.getMessage());
            }
        });
    }

    @Override
    public void waited(long nanos) {
        (Thread.currentThread() == probe ? probeWaits : serverWaits).observe(nanos / 1e9);
    }

    /**
     * With uvloop (LOOP start mode) the loop thread keeps the GIL and no apx thread asks for it; a
     * thread that needs Python then (run_in_executor, to_thread, a C extension's callback) waits
     * for the loop to let go: in select, or at the switch interval (5 ms) when it is busy. The
     * probe asks as such a thread would, rarely enough to cost nothing.
     */
    private void probeGil() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(PROBE_INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            bridge.interpreter().run(gil -> {
            }); // timed by waited(), like every entry
        }
    }

    /** From the loop's timer (loop thread, GIL held). */
    private void report(double lag, long readyCallbacks, long tasksAlive, Object[] gcCollections, Object[] gcPauses) {
        loopLag.observe(lag);
        ready = readyCallbacks >= 0 ? readyCallbacks : Double.NaN;
        tasks.set(tasksAlive);
        long[] counts = new long[3];
        double[] seconds = new double[3];
        for (int g = 0; g < 3; g++) {
            counts[g] = (Long) gcCollections[g];
            seconds[g] = (Double) gcPauses[g];
        }
        gc = new GcTotals(counts, seconds);
    }

    @Override
    public void close() {
        probe.interrupt();
        bridge.interpreter().observeGilWaits(null);
        try {
            bridge.runOnLoop(this::stopTimer);
        } catch (IllegalStateException loopGone) {
            // the loop already stopped, and its timer with it
        }
    }

    /** The GC callback goes; the loop's timer stops at its next tick. */
    private void stopTimer(Gil gil) {
        if (stop != null) {
            stop.call(gil).close();
            stop.close();
            stop = null;
        }
    }
}
