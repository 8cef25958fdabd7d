package dev.apx.spring.boot;

import dev.apx.AppOptions;
import dev.apx.config.Interface;
import dev.apx.config.LifespanMode;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code apx.*} properties: which Python runs which app, and where the servlet mounts it. The
 * auto-configuration is active once {@code apx.app} is set.
 */
@ConfigurationProperties("apx")
public class ApxProperties {
    // Paths are strings here: Spring's own String-to-Path conversion goes through its resource loader,
    // which in a web application resolves a relative path inside the servlet context.

    /** The Python interpreter to embed: a virtual environment's bin/python gives that environment's packages. */
    private String python;

    /** The app as module:attribute (for example main:app), imported as `python -c "import module"` would. */
    private String app;

    /** The directory put first on sys.path before the app is imported. */
    private String appDir = ".";

    /** The attribute is a factory: called without arguments, it returns the app. */
    private boolean factory;

    /** The protocol the app speaks: AUTO tells ASGI 3 from ASGI 2; WSGI must be named. */
    private Interface appInterface = Interface.AUTO;

    /** ASGI lifespan: AUTO runs it if the app supports it, ON requires it, OFF skips it. */
    private LifespanMode lifespan = LifespanMode.AUTO;

    /** The ASGI root_path (WSGI SCRIPT_NAME) of in-process calls; the servlet takes its own from the container. */
    private String rootPath = "";

    /** Set in Python's os.environ before the app is imported. */
    private Map<String, String> env = new LinkedHashMap<>();

    /** WSGI: the threads that run the app. */
    private int blockingThreads = 10;

    /** The servlet mapping the app is served at. */
    private String mountPath = "/py/*";

    /** The servlet that serves the app. */
    private final Servlet servlet = new Servlet();

    /** The defaults; Spring binds the {@code apx.*} properties onto them. */
    public ApxProperties() {
    }

    /**
     * The Python interpreter to embed.
     *
     * @return its path, or null if not set
     */
    public String getPython() {
        return python;
    }

    /**
     * Sets the Python interpreter to embed.
     *
     * @param python a python executable, typically a virtual environment's bin/python
     */
    public void setPython(String python) {
        this.python = python;
    }

    /**
     * The app to load.
     *
     * @return module:attribute, or null if not set
     */
    public String getApp() {
        return app;
    }

    /**
     * Sets the app to load.
     *
     * @param app module:attribute, for example main:app
     */
    public void setApp(String app) {
        this.app = app;
    }

    /**
     * The directory put first on sys.path.
     *
     * @return the app directory (the working directory by default)
     */
    public String getAppDir() {
        return appDir;
    }

    /**
     * Sets the directory put first on sys.path.
     *
     * @param appDir the app directory
     */
    public void setAppDir(String appDir) {
        this.appDir = appDir;
    }

    /**
     * Whether the attribute is a factory that returns the app.
     *
     * @return true if it is called to get the app
     */
    public boolean isFactory() {
        return factory;
    }

    /**
     * Sets whether the attribute is a factory that returns the app.
     *
     * @param factory true to call it without arguments to get the app
     */
    public void setFactory(boolean factory) {
        this.factory = factory;
    }

    /**
     * The protocol the app speaks ({@code apx.app-interface}).
     *
     * @return AUTO, ASGI3, ASGI2 or WSGI
     */
    public Interface getAppInterface() {
        return appInterface;
    }

    /**
     * Sets the protocol the app speaks.
     *
     * @param appInterface AUTO, ASGI3, ASGI2 or WSGI
     */
    public void setAppInterface(Interface appInterface) {
        this.appInterface = appInterface;
    }

    /**
     * The ASGI lifespan mode.
     *
     * @return AUTO, ON or OFF
     */
    public LifespanMode getLifespan() {
        return lifespan;
    }

    /**
     * Sets the ASGI lifespan mode.
     *
     * @param lifespan AUTO, ON or OFF
     */
    public void setLifespan(LifespanMode lifespan) {
        this.lifespan = lifespan;
    }

    /**
     * The root path of in-process calls.
     *
     * @return empty, or /prefix
     */
    public String getRootPath() {
        return rootPath;
    }

    /**
     * Sets the root path of in-process calls.
     *
     * @param rootPath empty, or /prefix without a trailing slash
     */
    public void setRootPath(String rootPath) {
        this.rootPath = rootPath;
    }

    /**
     * The variables set in Python's environment before the import.
     *
     * @return the variables by name (mutable: Spring binds into it)
     */
    public Map<String, String> getEnv() {
        return env;
    }

    /**
     * Sets the variables set in Python's environment before the import.
     *
     * @param env the variables by name
     */
    public void setEnv(Map<String, String> env) {
        this.env = env;
    }

    /**
     * The threads that run a WSGI app.
     *
     * @return at least 1
     */
    public int getBlockingThreads() {
        return blockingThreads;
    }

    /**
     * Sets the threads that run a WSGI app.
     *
     * @param blockingThreads at least 1
     */
    public void setBlockingThreads(int blockingThreads) {
        this.blockingThreads = blockingThreads;
    }

    /**
     * The servlet mapping the app is served at.
     *
     * @return a path mapping such as /py/*
     */
    public String getMountPath() {
        return mountPath;
    }

    /**
     * Sets the servlet mapping the app is served at.
     *
     * @param mountPath a path mapping such as /py/*
     */
    public void setMountPath(String mountPath) {
        this.mountPath = mountPath;
    }

    /**
     * The servlet's settings ({@code apx.servlet.*}).
     *
     * @return the servlet's settings
     */
    public Servlet getServlet() {
        return servlet;
    }

    /**
     * The {@link AppOptions} these properties describe.
     *
     * @return the options {@code PythonRuntime.app} takes
     * @throws IllegalStateException if {@code apx.app} is not set
     * @throws IllegalArgumentException if {@code apx.app}, {@code apx.root-path} or {@code apx.blocking-threads} is malformed
     */
    public AppOptions toAppOptions() {
        if (app == null || app.isBlank()) {
            throw new IllegalStateException("apx.app is not set: name the app as module:attribute, e.g. apx.app=main:app");
        }
        return AppOptions.of(app.strip(), Path.of(appDir))
                .withFactory(factory)
                .withInterface(appInterface)
                .withLifespan(lifespan)
                .withRootPath(rootPath)
                .withEnv(env)
                .withBlockingThreads(blockingThreads);
    }

    /** The {@code apx.servlet.*} properties. */
    public static class Servlet {
        /** Whether the app is served by a servlet at apx.mount-path (in a servlet web application). */
        private boolean enabled = true;

        /** The defaults: the servlet is registered. */
        public Servlet() {
        }

        /**
         * Whether the servlet is registered.
         *
         * @return true unless turned off
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets whether the servlet is registered.
         *
         * @param enabled false to use the app only through in-process calls
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
