package dev.apx.bridge;

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
    public static final long DEFAULT_SLOW_DRIVE_MILLIS = 500;
    /**
     * The loop begins the requests queued by the I/O threads in one go, ~60 tracked objects each
     * that are live, not garbage: with CPython's 700 a collection every ~11 of them, 60 per 1,000
     * requests on the db row against Uvicorn's ~2, and the in-flight objects they promote made full
     * collections frequent (docs/bridge.md, "Python's collector and the request waves").
     */
    public static final int DEFAULT_GC_THRESHOLD = 10_000;

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
        return new BridgeConfig(LoopKind.AUTO, mode, DEFAULT_SLOW_DRIVE_MILLIS, DEFAULT_GC_THRESHOLD);
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
