package dev.apx;

import dev.apx.python.Interpreter;
import dev.apx.python.PythonInstall;
import dev.apx.python.PythonSetupException;

import java.nio.file.Path;

/**
 * apx as a library: an embedded CPython to load Python web apps into ({@link #python}), or apx's
 * whole command-line server started from Java ({@link #server}). See docs/java.md.
 *
 * <p>The JVM needs {@code --enable-native-access=dev.apx} (on the module path) or
 * {@code --enable-native-access=ALL-UNNAMED} (on the class path): apx calls libpython through
 * the Foreign Function &amp; Memory API.
 */
public final class Apx {
    private Apx() {
    }

    /**
     * The embedded CPython of {@code pythonExecutable} (a venv's {@code bin/python} gives that
     * venv's packages, as {@code --python}). Started on the first call; later calls with the same
     * Python give a runtime over the same interpreter.
     *
     * @throws IllegalStateException this process already embeds another Python (one CPython per process for now)
     * @throws ApxException the executable is not a Python apx can embed (3.11-3.13 with a shared libpython)
     */
    public static synchronized PythonRuntime python(Path pythonExecutable) {
        PythonInstall install;
        try {
            install = PythonInstall.probe(pythonExecutable, "Apx.python");
        } catch (PythonSetupException e) {
            throw new ApxException(e.getMessage(), e);
        }
        Interpreter running = Interpreter.running();
        if (running != null && !running.install().library().equals(install.library())) {
            throw new IllegalStateException("apx: this process already embeds Python " + running.install().version()
                    + " (" + running.install().library() + "); it cannot also embed " + install.library()
                    + " until apx has one runtime per Python (one CPython per process for now)");
        }
        try {
            Interpreter interpreter = PlatformThreads.call("apx-python", () -> Interpreter.start(install));
            return new PythonRuntime(interpreter, install);
        } catch (PythonSetupException e) {
            throw new ApxException(e.getMessage(), e);
        }
    }

    /**
     * apx's server with the command line's flags ({@code "--app-dir", "examples", "main:app", "--port", "0"}),
     * in this JVM. Nothing JVM-wide changes unless a flag asks for it: no signal handlers,
     * {@code --log-level} and {@code --use-colors} only when given. {@code --workers} and
     * {@code --reload} need processes of their own and are refused.
     *
     * @throws IllegalArgumentException a bad flag (the message is the command line's usage error)
     */
    public static ApxServer server(String... args) {
        return new ApxServer(args);
    }
}
