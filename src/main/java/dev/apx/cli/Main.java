package dev.apx.cli;

import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;
import dev.apx.python.PythonInstall;
import dev.apx.python.PythonSetupException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code apx [options] APP}: finds Python, embeds it and loads the ASGI app.
 *
 * <p>Serving HTTP arrives with the server layer; today the command proves the embedding end to
 * end (find Python, load libpython, import {@code module:attribute}, check it is callable) and
 * says so. Exit codes: 0 loaded, 1 Python or app could not be loaded, 2 bad usage.
 */
@Command(name = "apx", mixinStandardHelpOptions = true, version = "apx 0.1.0",
        description = "ASGI server: Netty for the network, an embedded CPython for the app.")
public final class Main implements Callable<Integer> {
    @Parameters(paramLabel = "APP", description = "The ASGI app as module:attribute, e.g. main:app.")
    String app;

    @Option(names = "--python", paramLabel = "PATH",
            description = "The Python interpreter whose packages the app uses (default: $VIRTUAL_ENV, else python3 on PATH).")
    Path python;

    @Option(names = "--app-dir", paramLabel = "DIR", defaultValue = ".",
            description = "Look for APP in this directory (put first on sys.path). Default: ${DEFAULT-VALUE}.")
    Path appDir;

    public static void main(String[] args) {
        CommandLine commandLine = new CommandLine(new Main());
        System.exit(commandLine.execute(args));
    }

    @Override
    public Integer call() {
        try {
            int colon = app.indexOf(':');
            if (colon <= 0 || colon == app.length() - 1) {
                throw new PythonSetupException("APP must be module:attribute (e.g. main:app), got '" + app + "'");
            }
            PythonInstall install = PythonInstall.locate(Optional.ofNullable(python), System.getenv());
            Interpreter interpreter = Interpreter.start(install);
            String description = interpreter.call(gil -> {
                try (PyRef sys = gil.importModule("sys"); PyRef path = sys.getAttr(gil, "path")) {
                    path.callMethod(gil, "insert", 0, appDir.toAbsolutePath().normalize().toString()).close();
                }
                try (PyRef module = gil.importModule(app.substring(0, colon));
                     PyRef target = module.getAttr(gil, app.substring(colon + 1));
                     PyRef callable = gil.importModule("builtins").getAttr(gil, "callable")) {
                    if (!Boolean.TRUE.equals(callable.call(gil, target).toJava(gil))) {
                        throw new PythonSetupException(app + " is not callable: an ASGI app is a callable (scope, receive, send)");
                    }
                    return target.repr(gil);
                }
            });
            System.err.printf("apx: loaded %s = %s with Python %s (%s)%n", app, description, install.version(), install.library());
            System.err.println("apx: the HTTP server is not built yet; this build stops after loading the app.");
            return 0;
        } catch (PythonSetupException e) {
            System.err.println("apx: error: " + e.getMessage());
            return 1;
        } catch (PythonException e) {
            System.err.print(e.pythonTraceback());
            System.err.println("apx: error: cannot load app '" + app + "': " + e.getMessage());
            return 1;
        }
    }
}
