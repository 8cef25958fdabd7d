package dev.apx.bridge;

/**
 * Where a request's first step runs (docs/bridge.md, "Where a request starts").
 */
public enum StartMode {
    /** On the calling thread, under the step lock: one GIL hop for a request that never suspends (asyncio only). */
    CALLER,
    /** On the loop thread: callers queue the request and wake the loop once per batch. */
    LOOP,
    /** CALLER with asyncio, LOOP with uvloop (whose selector cannot be wrapped to release the step lock). */
    AUTO
}
