package dev.apx.server.shared;

/** Fired down each connection when the graceful shutdown timed out: cancel the request still running. */
public enum CancelEvent {
    INSTANCE
}
