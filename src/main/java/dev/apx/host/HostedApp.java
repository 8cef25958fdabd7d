package dev.apx.host;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.http.AsgiHttp;
import dev.apx.asgi.lifespan.Lifespan;
import dev.apx.asgi.websocket.AsgiWebSocket;
import dev.apx.bridge.Bridge;
import dev.apx.config.Interface;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.server.api.AppInstance;
import dev.apx.server.api.WebSocketApp;
import dev.apx.server.api.HttpApp;
import dev.apx.wsgi.WsgiHttp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One app's life in an embedded interpreter, shared by the command line ({@code serve/Serve}) and
 * the Java API ({@code dev.apx.PythonApp}): the environment and the import ({@link #load}), the
 * bridge and lifespan startup ({@link #start}), the {@link HttpApp} a server, a servlet or an
 * in-process call hands requests to, and lifespan shutdown ({@link #shutdown}, once).
 *
 * <p>Every method blocks its caller and takes the GIL: call from a platform thread that does not hold it.
 */
public final class HostedApp implements AutoCloseable {
    private static final long LIFESPAN_SHUTDOWN_SECONDS = 30;
    private static final long WSGI_THREADS_MILLIS = 5000;

    private final Interpreter interpreter;
    private final AppSpec spec;
    private final PyRef loaded;
    private final PyRef importContext;
    private final Interface kind;
    private final AtomicBoolean shutDown = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Map<String, AsgiConfig> rootPaths = new ConcurrentHashMap<>();
    private Bridge bridge;
    private Lifespan lifespan;
    private PyRef asgiApp;
    private AsgiHttp asgi;
    private AsgiWebSocket webSocket;
    private WsgiHttp wsgi;

    private HostedApp(Interpreter interpreter, AppSpec spec, PyRef loaded, PyRef importContext, Interface kind) {
        this.interpreter = interpreter;
        this.spec = spec;
        this.loaded = loaded;
        this.importContext = importContext;
        this.kind = kind;
    }

    /** Sets the spec's environment, imports the app and resolves its interface; starts nothing yet. */
    public static HostedApp load(Interpreter interpreter, AppSpec spec) {
        setEnvironment(interpreter, spec.env());
        sizeYoungGeneration(interpreter, spec.bridge().gcThreshold());
        PyRef app = AppLoader.load(interpreter, spec.appDir(), spec.app(), spec.factory());
        // with what the app's import set, for each request to copy
        PyRef context = interpreter.call(gil -> gil.copyContext());
        Interface kind = Interfaces.resolve(spec.kind(), interpreter, app);
        return new HostedApp(interpreter, spec, app, context, kind);
    }

    /** {@code --gc-threshold}: before the import, so that an app's own {@code gc.set_threshold} wins. */
    private static void sizeYoungGeneration(Interpreter interpreter, int threshold) {
        if (threshold > 0) {
            interpreter.run(gil -> {
                try (PyRef bridge = gil.importModule("_apx._bridge")) {
                    bridge.callMethod(gil, "size_young_generation", threshold).close();
                }
            });
        }
    }

    /** {@code env} ({@code --env-file}) into the runtime's {@code os.environ}. */
    public static void setEnvironment(Interpreter interpreter, Map<String, String> env) {
        if (!env.isEmpty()) {
            interpreter.run(gil -> {
                try (PyRef os = gil.importModule("os"); PyRef environ = os.getAttr(gil, "environ")) {
                    environ.callMethod(gil, "update", env).close();
                }
            });
        }
    }

    public Interface kind() {
        return kind;
    }

    /** The loaded object's repr, for the log. */
    public String description() {
        return interpreter.call(loaded::repr);
    }

    public Interpreter interpreter() {
        return interpreter;
    }

    /**
     * ASGI: starts the bridge (told to {@code onBridge} first: metrics), runs lifespan startup and
     * makes the HTTP and websocket handlers. WSGI: the blocking threads; no loop, no lifespan.
     */
    public void start(Consumer<Bridge> onBridge) throws Lifespan.StartupFailed, InterruptedException {
        if (kind == Interface.WSGI) {
            wsgi = new WsgiHttp(interpreter, loaded, spec.wsgi());
            return;
        }
        asgiApp = Interfaces.asAsgi3(kind, interpreter, loaded);
        bridge = Bridge.start(interpreter, spec.bridge());
        bridge.runRequestsIn(importContext);
        onBridge.accept(bridge);
        PyRef state = interpreter.call(gil -> gil.dict(Map.of()));
        lifespan = new Lifespan(bridge, asgiApp, state, spec.lifespan());
        lifespan.startup();
        asgi = new AsgiHttp(bridge, asgiApp, state, spec.asgi());
        webSocket = new AsgiWebSocket(bridge, asgiApp, state, spec.asgi());
    }

    /** Where requests go (after {@link #start}). */
    public HttpApp http() {
        return asgi != null ? asgi : wsgi;
    }

    /**
     * As {@link #http()} for an app mounted at {@code mountPath} (root_path, {@code SCRIPT_NAME}),
     * which each request's target already starts with: a servlet's context and servlet path.
     */
    public HttpApp http(String mountPath) {
        AsgiConfig config = rootPaths.computeIfAbsent(mountPath, spec.asgi()::withMountPath);
        return asgi != null ? (head, response) -> asgi.open(head, response, config)
                : (head, response) -> wsgi.open(head, response, config.app());
    }

    /**
     * As {@link #webSocket()} for an app mounted at {@code mountPath}, which each upgrade request's target
     * already starts with (a servlet's context and servlet path); null for a WSGI app.
     */
    public WebSocketApp webSocket(String mountPath) {
        if (webSocket == null) {
            return null;
        }
        AsgiConfig config = rootPaths.computeIfAbsent(mountPath, spec.asgi()::withMountPath);
        return (head, connection) -> webSocket.open(head, connection, config);
    }

    /**
     * What a server serves of this app (after {@link #start}): its HTTP handler and websocket handler.
     * Equal for every call, so a server can be asked to replace the instance it was given.
     */
    public AppInstance instance() {
        return new AppInstance(http(), webSocket());
    }

    /** The websocket handler, or null for a WSGI app. */
    public AsgiWebSocket webSocket() {
        return webSocket;
    }

    /** The bridge, or null for a WSGI app. */
    public Bridge bridge() {
        return bridge;
    }

    /**
     * Once, after the requests have drained: lifespan shutdown (ASGI), or waits for the blocking
     * threads (WSGI). Later calls do nothing.
     */
    public void shutdown() throws InterruptedException {
        if (!shutDown.compareAndSet(false, true)) {
            return;
        }
        if (lifespan != null) {
            lifespan.shutdown(LIFESPAN_SHUTDOWN_SECONDS);
        }
        if (wsgi != null) {
            wsgi.close(WSGI_THREADS_MILLIS);
        }
    }

    /** {@link #shutdown}, then stops the event loop's thread and gives back the app's references: for a host that lives on. */
    @Override
    public void close() throws InterruptedException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        shutdown();
        if (asgi != null) {
            asgi.close();
        }
        if (bridge != null) {
            bridge.close();
        }
        interpreter.run(gil -> {
            loaded.close();
            importContext.close();
            if (asgiApp != null) {
                asgiApp.close();
            }
        });
    }
}
