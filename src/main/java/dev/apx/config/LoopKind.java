package dev.apx.config;

/** Which asyncio event loop implementation runs on the loop thread ({@code --loop}). */
public enum LoopKind {
    /** uvloop when it can be imported, else asyncio. */
    AUTO,
    /** The standard library's asyncio loop. */
    ASYNCIO,
    /** uvloop's. */
    UVLOOP
}
