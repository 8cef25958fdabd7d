package dev.apx;

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
    /** The protocol the app speaks; AUTO tells ASGI 3 from ASGI 2 as Uvicorn does (never WSGI). */
    public enum Interface { AUTO, ASGI3, ASGI2, WSGI }

    /** ASGI lifespan: AUTO runs it if the app supports it, ON requires it, OFF skips it. */
    public enum Lifespan { AUTO, ON, OFF }

    private final String spec;
    private final Path appDir;
    private final Interface kind;
    private final boolean factory;
    private final Lifespan lifespan;
    private final String rootPath;
    private final Map<String, String> env;
    private final int blockingThreads;

    private AppOptions(String spec, Path appDir, Interface kind, boolean factory, Lifespan lifespan, String rootPath,
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

    /** {@code spec} is {@code module:attribute} (e.g. {@code main:app}), imported with {@code appDir} first on sys.path. */
    public static AppOptions of(String spec, Path appDir) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(appDir, "appDir");
        int colon = spec.indexOf(':');
        if (colon <= 0 || colon == spec.length() - 1) {
            throw new IllegalArgumentException("the app must be module:attribute (e.g. main:app), got '" + spec + "'");
        }
        return new AppOptions(spec, appDir, Interface.AUTO, false, Lifespan.AUTO, "", Map.of(), 10);
    }

    public AppOptions withInterface(Interface value) {
        return new AppOptions(spec, appDir, Objects.requireNonNull(value), factory, lifespan, rootPath, env, blockingThreads);
    }

    /** The attribute is a factory: called without arguments, it returns the app. */
    public AppOptions withFactory(boolean value) {
        return new AppOptions(spec, appDir, kind, value, lifespan, rootPath, env, blockingThreads);
    }

    public AppOptions withLifespan(Lifespan value) {
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

    /** Set in {@code os.environ} before the app is imported (the process's environment is shared by every app in it). */
    public AppOptions withEnv(Map<String, String> value) {
        return new AppOptions(spec, appDir, kind, factory, lifespan, rootPath, Map.copyOf(value), blockingThreads);
    }

    /** WSGI: the threads that run the app (default 10). */
    public AppOptions withBlockingThreads(int value) {
        if (value < 1) {
            throw new IllegalArgumentException("blocking threads must be at least 1, got " + value);
        }
        return new AppOptions(spec, appDir, kind, factory, lifespan, rootPath, env, value);
    }

    public String spec() {
        return spec;
    }

    public Path appDir() {
        return appDir;
    }

    public Interface appInterface() {
        return kind;
    }

    public boolean factory() {
        return factory;
    }

    public Lifespan lifespan() {
        return lifespan;
    }

    public String rootPath() {
        return rootPath;
    }

    public Map<String, String> env() {
        return env;
    }

    public int blockingThreads() {
        return blockingThreads;
    }

    @Override
    public String toString() {
        return "AppOptions[" + spec + " in " + appDir + ", " + kind + "]";
    }
}
