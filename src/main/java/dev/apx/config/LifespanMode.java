package dev.apx.config;

/** Whether an ASGI app's lifespan protocol runs ({@code --lifespan}). */
public enum LifespanMode {
    /** Runs it; an app that does not support it is served without. */
    AUTO,
    /** Runs it; an app that does not support it fails to start. */
    ON,
    /** Never runs it. */
    OFF
}
