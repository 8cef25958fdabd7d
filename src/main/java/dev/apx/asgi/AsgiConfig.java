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

    /** These settings for an app mounted at {@code path}, which every request's target starts with (a servlet's mount point). */
    public AsgiConfig withMountPath(String path) {
        return new AsgiConfig(app.withMountPath(path), resetContextvars);
    }

    public static AsgiConfig defaults() {
        return new AsgiConfig(AppConfig.defaults());
    }
}
