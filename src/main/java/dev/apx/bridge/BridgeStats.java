package dev.apx.bridge;

import java.util.concurrent.atomic.LongAdder;

/** Counters over all requests of one bridge; read them any time, from any thread. */
public final class BridgeStats {
    final LongAdder requestsDriven = new LongAdder();
    final LongAdder enterTaskCollisions = new LongAdder();
    final LongAdder stallsDetected = new LongAdder();
    final LongAdder deferredByStepLock = new LongAdder();
    final LongAdder loopErrors = new LongAdder();
    final LongAdder pokes = new LongAdder();
    final LongAdder slowDrives = new LongAdder();

    /** Requests started. */
    /** Drives that ran past {@link BridgeConfig#slowDriveMillis} (each logged once, while it ran). */
    public long slowDrives() {
        return slowDrives.sum();
    }

    public long requestsDriven() {
        return requestsDriven.sum();
    }

    /** "Cannot enter into task" errors, in our own steps or reported by the loop. */
    public long enterTaskCollisions() {
        return enterTaskCollisions.sum();
    }

    /** Times the watchdog found the loop asleep in select with work queued. */
    public long stallsDetected() {
        return stallsDetected.sum();
    }

    /** Times the loop thread, back from select, waited for a caller's drive to end before running callbacks. */
    public long deferredByStepLock() {
        return deferredByStepLock.sum();
    }

    /** Errors reported to the loop's exception handler. */
    public long loopErrors() {
        return loopErrors.sum();
    }

    /** Wake-ups sent because a caller's drive queued loop work. */
    public long pokes() {
        return pokes.sum();
    }

    @Override
    public String toString() {
        return "requests=" + requestsDriven() + " collisions=" + enterTaskCollisions() + " stalls=" + stallsDetected()
                + " deferred=" + deferredByStepLock() + " loopErrors=" + loopErrors() + " pokes=" + pokes();
    }
}
