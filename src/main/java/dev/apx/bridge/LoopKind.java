package dev.apx.bridge;

/** Which asyncio event loop implementation runs on the loop thread ({@code --loop}). */
public enum LoopKind {
    /** uvloop when it can be imported, else asyncio. */
    AUTO,
    ASYNCIO,
    UVLOOP;

    String pythonName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
