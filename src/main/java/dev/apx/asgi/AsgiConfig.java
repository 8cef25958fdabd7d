package dev.apx.asgi;

import dev.apx.app.AppConfig;

/**
 * The ASGI layer's settings.
 *
 * @param app              what ASGI shares with WSGI: root path and proxy-header trust
 * @param resetContextvars each HTTP request runs in an empty contextvars.Context (--reset-contextvars)
 */
public record AsgiConfig(AppConfig app, boolean resetContextvars) {
    public AsgiConfig(AppConfig app) {
        this(app, false);
    }

    public static AsgiConfig defaults() {
        return new AsgiConfig(AppConfig.defaults());
    }
}
