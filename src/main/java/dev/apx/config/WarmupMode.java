package dev.apx.config;

/** When the start-up warm-up runs ({@code --warmup-mode}). */
public enum WarmupMode {
    /** After the port opens, only while the server has no request of its own: the port opens ~1.5 s sooner. */
    IDLE,
    /** Before the port opens: the first clients meet compiled code, and wait for it. */
    BEFORE
}
