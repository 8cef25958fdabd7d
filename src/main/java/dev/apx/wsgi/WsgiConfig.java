package dev.apx.wsgi;

import dev.apx.app.AppConfig;
import dev.apx.config.Defaults;

/**
 * The WSGI layer's settings.
 *
 * @param app            root path and proxy-header trust, shared with the ASGI layer's flags
 *                       ({@code --root-path}, {@code --proxy-headers}, {@code --forwarded-allow-ips})
 * @param threads        the blocking threads that run the app ({@code --blocking-threads})
 * @param slowMillis     a request running this long is named in the log ({@code --slow-callback-duration}); 0: never
 * @param multiprocess   this process is one of several {@code --workers} ({@code wsgi.multiprocess}, as Gunicorn's)
 */
public record WsgiConfig(AppConfig app, int threads, long slowMillis, boolean multiprocess) {
    /** As Uvicorn's WSGI middleware and a2wsgi: 10 threads. */
    public static final int DEFAULT_THREADS = Defaults.BLOCKING_THREADS;

    public WsgiConfig {
        if (threads < 1) {
            throw new IllegalArgumentException("--blocking-threads must be at least 1, got " + threads);
        }
    }

    public static WsgiConfig defaults() {
        return new WsgiConfig(AppConfig.defaults(), DEFAULT_THREADS, 500, false);
    }
}
