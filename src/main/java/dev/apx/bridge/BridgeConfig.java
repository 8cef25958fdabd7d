package dev.apx.bridge;

import dev.apx.config.Defaults;
import dev.apx.config.LoopKind;

/**
 * How the bridge runs.
 *
 * @param loop       the event loop implementation
 * @param startMode  where requests take their first step
 * @param slowDriveMillis a stretch of a handler's code between awaits running longer than this is
 *                   logged, naming its request, while it runs; 0 turns it off
 * @param gcThreshold generation 0's threshold of Python's cyclic collector, set in the runtime
 *                   before the app is imported (an app's own {@code gc.set_threshold} then wins);
 *                   0 leaves CPython's own (700, or 2,000 on 3.13)
 */
public record BridgeConfig(LoopKind loop, StartMode startMode, long slowDriveMillis, int gcThreshold) {
    public static final long DEFAULT_SLOW_DRIVE_MILLIS = Math.round(Defaults.SLOW_CALLBACK_DURATION * 1000);
    /** Why this many: {@link Defaults#GC_THRESHOLD}. */
    public static final int DEFAULT_GC_THRESHOLD = Defaults.GC_THRESHOLD;

    public BridgeConfig {
        if (slowDriveMillis < 0) {
            throw new IllegalArgumentException("slowDriveMillis must be >= 0, got " + slowDriveMillis);
        }
        if (gcThreshold < 0) {
            throw new IllegalArgumentException("the gc threshold must be 0 (CPython's own) or more, got " + gcThreshold);
        }
    }

    /** AUTO loop and start mode; {@code -Dapx.bridge.startMode=CALLER|LOOP} overrides the mode (for measurements). */
    public static BridgeConfig defaults() {
        StartMode mode = StartMode.valueOf(System.getProperty("apx.bridge.startMode", StartMode.AUTO.name()));
        return new BridgeConfig(Defaults.LOOP, mode, DEFAULT_SLOW_DRIVE_MILLIS, DEFAULT_GC_THRESHOLD);
    }

    public BridgeConfig withLoop(LoopKind kind) {
        return new BridgeConfig(kind, startMode, slowDriveMillis, gcThreshold);
    }

    public BridgeConfig withStartMode(StartMode mode) {
        return new BridgeConfig(loop, mode, slowDriveMillis, gcThreshold);
    }

    public BridgeConfig withSlowDriveMillis(long millis) {
        return new BridgeConfig(loop, startMode, millis, gcThreshold);
    }

    public BridgeConfig withGcThreshold(int threshold) {
        return new BridgeConfig(loop, startMode, slowDriveMillis, threshold);
    }
}
