package dev.apx.bridge;

/**
 * How the bridge runs.
 *
 * @param loop       the event loop implementation
 * @param startMode  where requests take their first step
 * @param slowDriveMillis a stretch of a handler's code between awaits running longer than this is
 *                   logged, naming its request, while it runs; 0 turns it off
 */
public record BridgeConfig(LoopKind loop, StartMode startMode, long slowDriveMillis) {
    public static final long DEFAULT_SLOW_DRIVE_MILLIS = 500;

    public BridgeConfig {
        if (slowDriveMillis < 0) {
            throw new IllegalArgumentException("slowDriveMillis must be >= 0, got " + slowDriveMillis);
        }
    }

    /** AUTO loop and start mode; {@code -Dapx.bridge.startMode=CALLER|LOOP} overrides the mode (for measurements). */
    public static BridgeConfig defaults() {
        StartMode mode = StartMode.valueOf(System.getProperty("apx.bridge.startMode", StartMode.AUTO.name()));
        return new BridgeConfig(LoopKind.AUTO, mode, DEFAULT_SLOW_DRIVE_MILLIS);
    }

    public BridgeConfig withLoop(LoopKind kind) {
        return new BridgeConfig(kind, startMode, slowDriveMillis);
    }

    public BridgeConfig withStartMode(StartMode mode) {
        return new BridgeConfig(loop, mode, slowDriveMillis);
    }

    public BridgeConfig withSlowDriveMillis(long millis) {
        return new BridgeConfig(loop, startMode, millis);
    }
}
