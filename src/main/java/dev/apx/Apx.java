package dev.apx;

import dev.apx.config.ApxConfig;
import dev.apx.python.Interpreter;
import dev.apx.python.PythonInstall;
import dev.apx.python.PythonSetupException;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * apx as a library: an embedded CPython to load Python web apps into ({@link #python}), or apx's
 * whole command-line server started from Java ({@link #server}). See docs/java.md.
 *
 * <p>The JVM needs {@code --enable-native-access=dev.apx} (on the module path) or
 * {@code --enable-native-access=ALL-UNNAMED} (on the class path): apx calls libpython through
 * the Foreign Function &amp; Memory API.
 */
public final class Apx {
    private static final Map<Path, PythonRuntime> RUNTIMES = new HashMap<>(); // by executable

    private Apx() {
    }

    /**
     * The embedded CPython of {@code pythonExecutable} (a venv's {@code bin/python} gives that
     * venv's packages, as {@code --python}). Started on the first call for that executable; later
     * calls with it give the same runtime (its apps share one {@code sys.modules} and GIL). Another
     * executable (another venv, another Python version) gets a runtime of its own in this JVM: a
     * separate CPython in a glibc namespace of its own (docs/interpreters.md), 16 at most per process.
     *
     * @param pythonExecutable the interpreter to embed: its {@code bin/python} (a venv's, or an installation's)
     * @return the runtime of that executable, started on the first call
     * @throws ApxException the executable is not a Python apx can embed (3.11-3.15 with a shared
     *                      libpython), or no namespace is left for another runtime
     */
    public static synchronized PythonRuntime python(Path pythonExecutable) {
        PythonInstall install;
        try {
            install = PythonInstall.probe(pythonExecutable, "Apx.python");
        } catch (PythonSetupException e) {
            throw new ApxException(e.getMessage(), e);
        }
        PythonRuntime known = RUNTIMES.get(install.executable());
        if (known != null) {
            return known;
        }
        Interpreter running = Interpreter.running();
        try {
            Interpreter interpreter;
            if (running != null && running.install().executable().equals(install.executable())) {
                interpreter = running; // started by apx's server (Apx.server) in this JVM
            } else if (running == null) {
                interpreter = PlatformThreads.call("apx-python", () -> Interpreter.start(install));
            } else {
                interpreter = PlatformThreads.call("apx-python", () -> Interpreter.startIsolated(install));
            }
            PythonRuntime runtime = new PythonRuntime(interpreter, install);
            RUNTIMES.put(install.executable(), runtime);
            return runtime;
        } catch (PythonSetupException e) {
            throw new ApxException(e.getMessage(), e);
        }
    }

    /**
     * apx's server in this JVM, configured as the command line would be with the same settings:
     * <pre>{@code
     * ApxServer server = Apx.server(ApxConfig.builder()
     *         .app(app -> app.spec("main:app").appDir(Path.of("examples")))
     *         .bind(bind -> bind.port(0))
     *         .build()).start();
     * }</pre>
     * Nothing JVM-wide changes unless a setting asks for it: no signal handlers, the log level, colors
     * and extra response headers only when set. Worker processes, reload and an inherited fd need
     * processes of their own and are refused.
     *
     * @param config the settings
     * @return the server, not started yet
     * @throws IllegalArgumentException {@code config} asks for workers, reload or an fd
     */
    public static ApxServer server(ApxConfig config) {
        return new ApxServer(config);
    }
}
