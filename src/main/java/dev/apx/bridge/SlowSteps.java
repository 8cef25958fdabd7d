package dev.apx.bridge;

import dev.apx.log.Log;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongFunction;

/**
 * Names a handler running synchronous code (time.sleep, CPU work, blocking I/O): it holds the GIL
 * and, with it, the loop. Reported once per task while it runs, like asyncio debug mode's slow
 * callbacks, but without debug mode's cost on every callback.
 *
 * <p>Two ways to see it: a request's first step, which apx takes itself ({@link #stepBegins}), is
 * timed directly; every later step is asyncio's, so the watchdog looks at how long the loop has
 * run without waiting for I/O ({@link #loopBusy} from the stepping selector, or {@link #beat}s of
 * a timer on uvloop, which has no selector to wrap) and asks, with the GIL, which task is current.
 * The same task seen current twice in a row, a look apart, is reported.
 */
final class SlowSteps {
    private final long slowNanos;
    private final LongAdder reports;
    private volatile Request stepping;     // a first step in progress (one at a time: step lock or loop thread)
    private volatile long steppingSince;
    private volatile long busySince;       // asyncio: when the loop last came back from select; 0 while it waits
    private volatile long lastBeat;        // uvloop: the heartbeat's last tick
    private volatile long beatNanos;       // 0: no heartbeat
    private Object reported;               // watchdog thread only: the last request or task named
    private long candidate;                // watchdog thread only: the task current at the last look

    SlowSteps(long slowMillis, LongAdder reports) {
        this.slowNanos = TimeUnit.MILLISECONDS.toNanos(slowMillis);
        this.reports = reports;
    }

    boolean enabled() {
        return slowNanos > 0;
    }

    void stepBegins(Request request) {
        steppingSince = System.nanoTime();
        stepping = request;
    }

    void stepEnds(Request request) {
        if (stepping == request) {
            stepping = null;
        }
    }

    /** The loop came back from select ({@code since} > 0) or is about to wait in it (0). */
    void loopBusy(long since) {
        busySince = since;
    }

    /** uvloop's heartbeat ticked (every {@code periodNanos}). */
    void beat(long periodNanos) {
        beatNanos = periodNanos;
        lastBeat = System.nanoTime();
    }

    /**
     * The watchdog's look. {@code currentTask} gives the task current on the loop (taking the GIL);
     * {@code labelOf} names a request by its task's id, or null when the task is not a request's.
     */
    void look(Interpreter interpreter, PyRef loop, PyRef currentTaskFunction, LongFunction<String> labelOf) {
        if (slowNanos == 0) {
            return;
        }
        long now = System.nanoTime();
        Request first = stepping;
        if (first != null && now - steppingSince >= slowNanos) {
            report(first, first.label(), now - steppingSince);
            return;
        }
        long busyFor = busyFor(now);
        if (busyFor < slowNanos) {
            candidate = 0;
            return;
        }
        String[] name = new String[1];
        long task = interpreter.call(gil -> {
            try (PyRef current = currentTaskFunction.call(gil, loop)) {
                if (current.isNone(gil)) {
                    return 0L;
                }
                long id = current.id(gil);
                String label = labelOf.apply(id);
                name[0] = label != null ? label : "the task " + current.repr(gil);
                return id;
            }
        });
        if (task == 0 || task != candidate) {
            candidate = task; // seen once: named at the next look if it is still the one running
            return;
        }
        report(task, name[0], busyFor);
    }

    private long busyFor(long now) {
        long since = busySince;
        if (since != 0) {
            return now - since;
        }
        long period = beatNanos;
        return period == 0 ? 0 : now - lastBeat - period;
    }

    private void report(Object what, String name, long nanos) {
        if (what.equals(reported)) {
            return;
        }
        reported = what;
        Log.warning("apx: " + name + " has run for " + TimeUnit.NANOSECONDS.toMillis(nanos)
                + " ms without awaiting: it blocks the event loop (synchronous code in an async handler?)");
        reports.increment();
    }
}
