package dev.apx.server.shared;

/** Fired down each connection when the server stops: close when idle, else after the current response. */
public enum ShutdownEvent {
    INSTANCE
}
