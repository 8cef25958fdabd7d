package dev.apx;

import dev.apx.config.Defaults;
import dev.apx.config.Interface;
import dev.apx.config.LifespanMode;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * How {@link PythonRuntime#app(AppOptions)} loads an app: the command line's {@code APP},
 * {@code --app-dir}, {@code --interface}, {@code --factory}, {@code --lifespan},
 * {@code --root-path}, {@code --env-file} (as a map) and {@code --blocking-threads}. Immutable:
 * each {@code with...} returns a copy.
 */
public final class AppOptions {
    private final String spec;
    private final Path appDir;
    private final Interface kind;
    private final boolean factory;
    private final LifespanMode lifespan;
    private final String rootPath;
    private final Map<String, String> env;
    private final int blockingThreads;

    private AppOptions(String spec, Path appDir, Interface kind, boolean factory, LifespanMode lifespan, String rootPath,
                       Map<String, String> env, int blockingThreads) {
        this.spec = spec;
        this.appDir = appDir;
        this.kind = kind;
        this.factory = factory;
        this.lifespan = lifespan;
        this.rootPath = rootPath;
        this.env = env;
        this.blockingThreads = blockingThreads;
    }

    /**
     * Options for an app with the command line's defaults.
     *
     * @param spec   {@code module:attribute} (e.g. {@code main:app})
     * @param appDir the directory put first on {@code sys.path} for the import
     * @return the options, each other setting at its default
     * @throws IllegalArgumentException {@code spec} is not {@code module:attribute}
     */
    public static AppOptions of(String spec, Path appDir) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(appDir, "appDir");
        int colon = spec.indexOf(':');
        if (colon <= 0 || colon == spec.length() - 1) {
            throw new IllegalArgumentException("the app must be module:attribute (e.g. main:app), got '" + spec + "'");
        }
        return new AppOptions(spec, appDir, Interface.AUTO, false, LifespanMode.AUTO, Defaults.ROOT_PATH, Map.of(), Defaults.BLOCKING_THREADS);
    }

    /**
     * The protocol the app speaks ({@code --interface}).
     *
     * @param value the interface; {@link Interface#AUTO} by default
     * @return these options with that interface
     */
    public AppOptions withInterface(Interface value) {
        return new AppOptions(spec, appDir, Objects.requireNonNull(value), factory, lifespan, rootPath, env, blockingThreads);
    }

    /**
     * Whether the attribute is a factory: called without arguments, it returns the app ({@code --factory}).
     *
     * @param value true for a factory
     * @return these options with that setting
     */
    public AppOptions withFactory(boolean value) {
        return new AppOptions(spec, appDir, kind, value, lifespan, rootPath, env, blockingThreads);
    }

    /**
     * How ASGI lifespan runs ({@code --lifespan}).
     *
     * @param value the lifespan mode; {@link LifespanMode#AUTO} by default
     * @return these options with that mode
     */
    public AppOptions withLifespan(LifespanMode value) {
        return new AppOptions(spec, appDir, kind, factory, Objects.requireNonNull(value), rootPath, env, blockingThreads);
    }

    /**
     * The app's mount point: ASGI's {@code root_path} (WSGI's {@code SCRIPT_NAME}) of every in-process call.
     * A request whose path starts with it keeps its path as given ({@code /prefix/items} reaches the app's
     * {@code /items}, with {@code path} {@code /prefix/items}); any other path is taken as relative to the
     * mount point and gets it put in front, as {@code --root-path} does ({@code /items} is
     * {@code /prefix/items} too).
     *
     * @param value empty, or {@code /prefix} without a trailing slash
     * @return these options with that root path
     * @throws IllegalArgumentException the value is not empty and not {@code /prefix}
     */
    public AppOptions withRootPath(String value) {
        Objects.requireNonNull(value, "rootPath");
        if (!value.isEmpty() && (!value.startsWith("/") || value.endsWith("/"))) {
            throw new IllegalArgumentException("a root path is empty or /prefix without a trailing slash, got '" + value + "'");
        }
        return new AppOptions(spec, appDir, kind, factory, lifespan, value, env, blockingThreads);
    }

    /**
     * Variables set in {@code os.environ} before the app is imported (the process's environment is shared by every app in it).
     *
     * @param value the variables (copied)
     * @return these options with that environment
     */
    public AppOptions withEnv(Map<String, String> value) {
        return new AppOptions(spec, appDir, kind, factory, lifespan, rootPath, Map.copyOf(value), blockingThreads);
    }

    /**
     * WSGI: the threads that run the app ({@code --blocking-threads}).
     *
     * @param value the thread count, at least 1 (default 10)
     * @return these options with that many threads
     * @throws IllegalArgumentException the value is below 1
     */
    public AppOptions withBlockingThreads(int value) {
        if (value < 1) {
            throw new IllegalArgumentException("blocking threads must be at least 1, got " + value);
        }
        return new AppOptions(spec, appDir, kind, factory, lifespan, rootPath, env, value);
    }

    /**
     * The app to import.
     *
     * @return {@code module:attribute}
     */
    public String spec() {
        return spec;
    }

    /**
     * Where the app is imported from.
     *
     * @return the directory put first on {@code sys.path}
     */
    public Path appDir() {
        return appDir;
    }

    /**
     * The protocol the app speaks.
     *
     * @return the interface, {@link Interface#AUTO} unless set
     */
    public Interface appInterface() {
        return kind;
    }

    /**
     * Whether the attribute is a factory.
     *
     * @return true when the attribute is called to make the app
     */
    public boolean factory() {
        return factory;
    }

    /**
     * How ASGI lifespan runs.
     *
     * @return the lifespan mode
     */
    public LifespanMode lifespan() {
        return lifespan;
    }

    /**
     * The app's mount point ({@link #withRootPath}).
     *
     * @return empty, or {@code /prefix}
     */
    public String rootPath() {
        return rootPath;
    }

    /**
     * The variables set before the import.
     *
     * @return an unmodifiable map
     */
    public Map<String, String> env() {
        return env;
    }

    /**
     * WSGI: the threads that run the app.
     *
     * @return the thread count
     */
    public int blockingThreads() {
        return blockingThreads;
    }

    @Override
    public String toString() {
        return "AppOptions[" + spec + " in " + appDir + ", " + kind + "]";
    }
}
