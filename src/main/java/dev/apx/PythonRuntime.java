package dev.apx;

import dev.apx.app.AppConfig;

import dev.apx.asgi.AsgiConfig;
import dev.apx.asgi.lifespan.Lifespan;
import dev.apx.app.TrustedHosts;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.StartMode;
import dev.apx.host.AppSpec;
import dev.apx.host.HostedApp;
import dev.apx.python.Interpreter;
import dev.apx.python.PythonException;
import dev.apx.python.PythonInstall;
import dev.apx.wsgi.WsgiConfig;

import java.nio.file.Path;

/**
 * An embedded CPython ({@link Apx#python}): the interpreter of one Python executable, with its
 * venv's packages. Apps loaded into it share its GIL and its {@code sys.modules}.
 *
 * <p>Each Python executable is one runtime per JVM: every {@link Apx#python} call with the same
 * executable returns this runtime; another executable (another venv or version) gets its own,
 * with its own GIL, in a glibc namespace of its own.
 */
public final class PythonRuntime {
    private final Interpreter interpreter;
    private final PythonInstall install;
    private final FunctionCalls calls;

    PythonRuntime(Interpreter interpreter, PythonInstall install) {
        this.interpreter = interpreter;
        this.install = install;
        this.calls = new FunctionCalls(interpreter);
    }

    /**
     * The Python version.
     *
     * @return e.g. {@code 3.12.1}
     */
    public String version() {
        return install.version();
    }

    /**
     * The interpreter this runtime embeds.
     *
     * @return the interpreter executable that {@link Apx#python} was given for it
     */
    public Path executable() {
        return install.executable();
    }

    /**
     * Finds a Python function to call from Java: imports its module and looks it up, once. The
     * first function of a runtime also starts the runtime's own event loop, on which calls run
     * (see {@link PythonFunction}). Blocks the caller (a virtual caller waits for a platform thread
     * that does it).
     *
     * @param spec {@code package.module:function}; the function may be a dotted path
     *             ({@code module:Class.method}) and any callable
     * @return the function, to call as often as needed
     * @throws ApxException the module is not found or its import raised, the name is missing or not callable
     */
    public PythonFunction function(String spec) {
        return function(spec, null);
    }

    /**
     * As {@link #function(String)}, with {@code moduleDir} put first on the runtime's
     * {@code sys.path} (unless it is on it already), as an app's directory is.
     *
     * @param spec      {@code package.module:function}
     * @param moduleDir the directory the module is imported from, or null for the runtime's {@code sys.path} as it is
     * @return the function, to call as often as needed
     * @throws ApxException the module is not found or its import raised, the name is missing or not callable
     */
    public PythonFunction function(String spec, Path moduleDir) {
        java.util.Objects.requireNonNull(spec, "spec");
        return PlatformThreads.call("apx-function " + spec, () -> calls.function(spec, moduleDir));
    }

    /**
     * {@code app(AppOptions.of(spec, appDir))}.
     *
     * @param spec   {@code module:attribute} (e.g. {@code main:app})
     * @param appDir the directory put first on {@code sys.path} for the import
     * @return the app, its lifespan started
     * @throws ApxException the import raised, the object is not callable, or lifespan startup failed
     */
    public PythonApp app(String spec, Path appDir) {
        return app(AppOptions.of(spec, appDir));
    }

    /**
     * Imports the app, starts its event loop (ASGI) or blocking threads (WSGI) and runs lifespan
     * startup; returns once it can take requests. Blocks the caller (a virtual caller waits for a
     * platform thread that does it).
     *
     * @param options the app and how to load it
     * @return the app, its lifespan started
     * @throws ApxException the import raised, the object is not callable, or lifespan startup failed
     */
    public PythonApp app(AppOptions options) {
        AppSpec spec = new AppSpec(options.spec(), options.appDir(), options.factory(),
                options.appInterface(), options.lifespan(), options.env(),
                // LOOP: a request begins on the loop thread, so no caller (a container's thread, a
                // virtual thread) ever takes or waits for the GIL
                BridgeConfig.defaults().withStartMode(StartMode.LOOP),
                // the host's own proxy handling (a container's forwarded-request customizer) applies, not apx's
                new AsgiConfig(new AppConfig(options.rootPath(), false, TrustedHosts.parse("127.0.0.1"))),
                new WsgiConfig(new AppConfig(options.rootPath(), false, TrustedHosts.parse("127.0.0.1")), options.blockingThreads(),
                        BridgeConfig.DEFAULT_SLOW_DRIVE_MILLIS, false));
        return PlatformThreads.call("apx-load " + options.spec(), () -> load(spec));
    }

    private PythonApp load(AppSpec spec) throws InterruptedException {
        HostedApp hosted;
        try {
            hosted = HostedApp.load(interpreter, spec);
        } catch (PythonException e) {
            throw new ApxException("cannot load app '" + spec.app() + "': " + e.getMessage() + "\n" + e.pythonTraceback(), e);
        } catch (dev.apx.host.AppNotFound e) {
            throw new ApxException("cannot load app '" + spec.app() + "': " + e.getMessage(), e);
        } catch (dev.apx.python.PythonSetupException e) {
            throw new ApxException(e.getMessage(), e);
        }
        try {
            hosted.start(bridge -> { });
        } catch (Lifespan.StartupFailed e) {
            hosted.close();
            throw new ApxException("lifespan startup of '" + spec.app() + "' failed: " + e.getMessage(), e);
        }
        return new PythonApp(hosted, spec.app(), spec.asgi().app().rootPath());
    }

    @Override
    public String toString() {
        return "PythonRuntime[Python " + install.version() + ", " + install.library() + "]";
    }
}
