package dev.apx.server.api;

/**
 * One instance of the app, as the server sees it: what answers a connection's requests, and its
 * upgrades to WebSocket ({@code null}: upgrades reach {@code http} as plain requests). apx runs one
 * instance per Python runtime; the server gives each connection to one instance, and it keeps it.
 */
public record AppInstance(HttpApp http, WebSocketApp webSocket) {
}
