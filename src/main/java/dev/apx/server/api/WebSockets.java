package dev.apx.server.api;

/** The WebSocket side of a server: the app that answers upgrades, and the settings. */
public record WebSockets(WebSocketApp app, WebSocketConfig config) {
}
