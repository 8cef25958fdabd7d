package dev.apx.host;

import dev.apx.server.api.HttpApp;
import dev.apx.server.api.WebSocketApp;

import java.util.Objects;

/**
 * How the servlet ({@code dev.apx.servlet}) reaches the {@link HttpApp} behind a public
 * {@code dev.apx.PythonApp} without a public method that would show internal types: the API
 * package registers the lookup when {@code PythonApp} is initialised.
 */
public final class ApiAccess {
    /** What the API package gives the servlet. */
    public interface Apps {
        /** The app's handler with {@code rootPath} as every request's root path, counted in the app's in-flight requests. */
        HttpApp http(Object pythonApp, String rootPath);

        /**
         * The app's websocket handler with {@code rootPath} as every connection's root path, or null when the
         * app has none (WSGI); IllegalStateException once the app is closing.
         */
        WebSocketApp webSocket(Object pythonApp, String rootPath);
    }

    private static volatile Apps apps;

    private ApiAccess() {
    }

    public static void register(Apps lookup) {
        apps = Objects.requireNonNull(lookup);
    }

    public static HttpApp http(Object pythonApp, String rootPath) {
        return apps.http(pythonApp, rootPath); // registered: an instance exists, so its class is initialised
    }

    public static WebSocketApp webSocket(Object pythonApp, String rootPath) {
        return apps.webSocket(pythonApp, rootPath);
    }
}
