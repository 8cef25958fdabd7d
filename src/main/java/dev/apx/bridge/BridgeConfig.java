package dev.apx.bridge;

/**
 * How the bridge runs.
 *
 * @param loop       the event loop implementation
 * @param startMode  where requests take their first step
 * @param stepBudget coroutine steps one drive may take before it yields to the loop
 */
public record BridgeConfig(LoopKind loop, StartMode startMode, int stepBudget) {
    public static final int DEFAULT_STEP_BUDGET = 64;

    public BridgeConfig {
        if (stepBudget < 1) {
            throw new IllegalArgumentException("stepBudget must be >= 1, got " + stepBudget);
        }
    }

    /** AUTO loop and start mode; {@code -Dapx.bridge.startMode=CALLER|LOOP} overrides the mode (for measurements). */
    public static BridgeConfig defaults() {
        StartMode mode = StartMode.valueOf(System.getProperty("apx.bridge.startMode", StartMode.AUTO.name()));
        return new BridgeConfig(LoopKind.AUTO, mode, DEFAULT_STEP_BUDGET);
    }

    public BridgeConfig withLoop(LoopKind kind) {
        return new BridgeConfig(kind, startMode, stepBudget);
    }

    public BridgeConfig withStartMode(StartMode mode) {
        return new BridgeConfig(loop, mode, stepBudget);
    }
}
