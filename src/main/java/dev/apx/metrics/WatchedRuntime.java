package dev.apx.metrics;

import dev.apx.bridge.Bridge;
import dev.apx.log.Log;
import dev.apx.python.Gil;
import dev.apx.python.GilWaitObserver;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;

/**
 * What {@link PythonMetrics} reads from one CPython runtime. The GIL wait is timed in Java around
 * each GIL entry of a Java thread (the interpreter's {@link GilWaitObserver}), and a probe thread
 * asks for the GIL 4 times a second. The rest comes from {@code _apx._metrics}: with an event loop
 * (ASGI) a timer on it reports the loop's lag, its ready queue, the tasks alive and the GC's totals
 * in one call on the loop thread; without one (WSGI) the probe fetches the GC's totals while it
 * holds the GIL anyway. A scrape never takes the GIL.
 */
final class WatchedRuntime implements GilWaitObserver, AutoCloseable {
    private static final long PROBE_INTERVAL_MILLIS = 250;

    /** One report's counts and pause totals together: a scrape never pairs a new count with an old pause. */
    record GcTotals(long[] collections, double[] pauses) {
    }

    private final Interpreter interpreter;
    private final Bridge bridge; // null: a WSGI runtime, no loop
    private final DistributionDataPoint serverWaits;
    private final DistributionDataPoint probeWaits;
    private final DistributionDataPoint loopLag;
    private final Thread probe;
    private volatile double ready = Double.NaN; // NaN: no readable ready queue (uvloop, WSGI)
    private volatile long tasks = -1; // -1: no loop
    private volatile GcTotals gc = new GcTotals(new long[3], new double[3]);
    private PyRef stop; // ASGI: stops the loop's timer; loop thread only
    // WSGI, probe thread only (after the constructor): _apx._metrics, the function report_gc calls, watch_gc's stop
    private PyRef module;
    private PyRef gcReport;
    private PyRef gcStop;

    /**
     * Starts watching. The children are the slot's (label {@code interpreter}), shared with the
     * runtimes it had before; {@code loopLag} is null without a loop.
     */
    WatchedRuntime(Interpreter interpreter, Bridge bridge, String slot, DistributionDataPoint serverWaits,
                   DistributionDataPoint probeWaits, DistributionDataPoint loopLag) {
        this.interpreter = interpreter;
        this.bridge = bridge;
        this.serverWaits = serverWaits;
        this.probeWaits = probeWaits;
        this.loopLag = loopLag;
        interpreter.observeGilWaits(this);
        if (bridge != null) {
            bridge.runOnLoop(this::startTimer);
        } else {
            interpreter.run(this::watchGc);
        }
        probe = Thread.ofPlatform().name("apx-metrics-gil-probe-" + slot).daemon(true).start(this::probeGil);
    }

    Interpreter interpreter() {
        return interpreter;
    }

    double ready() {
        return ready;
    }

    /** asyncio tasks alive, or -1 without a loop. */
    long tasks() {
        return tasks;
    }

    GcTotals gc() {
        return gc;
    }

    @Override
    public void waited(long nanos) {
        (Thread.currentThread() == probe ? probeWaits : serverWaits).observe(nanos / 1e9);
    }

    /** Loop thread, GIL held. */
    private void startTimer(Gil gil) {
        try (PyRef metrics = gil.importModule("_apx._metrics");
             PyRef report = gil.function("apx_metrics_report", (g, args) -> {
                 report((Double) args.get(0), (Long) args.get(1), (Long) args.get(2), (Object[]) args.get(3), (Object[]) args.get(4));
                 return null;
             })) {
            stop = metrics.callMethod(gil, "start", bridge.loop(), report);
        } catch (PythonException e) {
            Log.warning("apx: --metrics cannot watch the event loop: " + e.getMessage());
        }
    }

    /** WSGI: the GC callback goes in; the probe reads its totals. */
    private void watchGc(Gil gil) {
        try {
            module = gil.importModule("_apx._metrics");
            gcStop = module.callMethod(gil, "watch_gc");
            gcReport = gil.function("apx_metrics_gc", (g, args) -> {
                gc = totals((Object[]) args.get(0), (Object[]) args.get(1));
                return null;
            });
        } catch (PythonException e) {
            Log.warning("apx: --metrics cannot watch the garbage collector: " + e.getMessage());
        }
    }

    /**
     * With uvloop (LOOP start mode) the loop thread keeps the GIL and no apx thread asks for it; a
     * thread that needs Python then (run_in_executor, to_thread, a C extension's callback) waits
     * for the loop to let go: in select, or at the switch interval (5 ms) when it is busy. The
     * probe asks as such a thread would, rarely enough to cost nothing.
     */
    private void probeGil() {
        try {
            while (true) {
                Thread.sleep(PROBE_INTERVAL_MILLIS);
                interpreter.run(gil -> { // timed by waited(), like every entry
                    if (gcReport != null) {
                        module.callMethod(gil, "report_gc", gcReport).close();
                    }
                });
            }
        } catch (InterruptedException e) {
            // retired or closed
        } finally {
            if (gcReport != null) { // here, not in close(): a WSGI thread that never lets the GIL go must not hold up the shutdown
                interpreter.run(this::stopGcWatch);
            }
        }
    }

    /** WSGI, probe thread: a last report, then the GC callback goes. */
    private void stopGcWatch(Gil gil) {
        module.callMethod(gil, "report_gc", gcReport).close();
        gcStop.call(gil).close();
        gcStop.close();
        gcReport.close();
        module.close();
    }

    /** From the loop's timer (loop thread, GIL held). */
    private void report(double lag, long readyCallbacks, long tasksAlive, Object[] gcCollections, Object[] gcPauses) {
        loopLag.observe(lag);
        ready = readyCallbacks >= 0 ? readyCallbacks : Double.NaN;
        tasks = tasksAlive;
        gc = totals(gcCollections, gcPauses);
    }

    private static GcTotals totals(Object[] gcCollections, Object[] gcPauses) {
        long[] counts = new long[3];
        double[] seconds = new double[3];
        for (int g = 0; g < 3; g++) {
            counts[g] = (Long) gcCollections[g];
            seconds[g] = (Double) gcPauses[g];
        }
        return new GcTotals(counts, seconds);
    }

    /**
     * A reload replaced this runtime: the probe stops (the runtime stays mapped, idle, once drained).
     * Its GIL waits and its loop's reports still count for the slot while its last requests drain
     * (a WSGI runtime's GC totals stop at the probe's last report).
     */
    void retire() {
        probe.interrupt();
    }

    /** Stops the probe (which stops a WSGI runtime's GC count as it ends) and the loop's timer. */
    @Override
    public void close() {
        probe.interrupt();
        interpreter.observeGilWaits(null);
        if (bridge != null) {
            try {
                bridge.runOnLoop(this::stopTimer);
            } catch (IllegalStateException loopGone) {
                // the loop already stopped, and its timer with it
            }
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
