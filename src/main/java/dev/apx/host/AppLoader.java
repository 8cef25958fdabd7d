package dev.apx.host;

import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonSetupException;

import java.nio.file.Path;

/** Imports {@code module:attribute} with {@code appDir} first on sys.path; {@code --factory} calls it. */
public final class AppLoader {
    private AppLoader() {
    }

    public static void checkSpec(String app) {
        int colon = app.indexOf(':');
        if (colon <= 0 || colon == app.length() - 1) {
            throw new PythonSetupException("APP must be module:attribute (e.g. main:app), got '" + app + "'");
        }
    }

    /** The app (an owned reference) and its repr. */
    public static PyRef load(Interpreter interpreter, Path appDir, String app, boolean factory) {
        int colon = app.indexOf(':');
        return interpreter.call(gil -> {
            try (PyRef sys = gil.importModule("sys"); PyRef path = sys.getAttr(gil, "path")) {
                path.callMethod(gil, "insert", 0, appDir.toAbsolutePath().normalize().toString()).close();
            }
            try (PyRef module = gil.importModule(app.substring(0, colon));
                 PyRef target = attribute(gil, module, app.substring(colon + 1));
                 PyRef builtins = gil.importModule("builtins");
                 PyRef callable = builtins.getAttr(gil, "callable")) {
                PyRef result = factory ? target.call(gil) : target.newRef(gil);
                try (PyRef check = callable.call(gil, result)) {
                    if (!check.isTrue(gil)) {
                        result.close();
                        throw new PythonSetupException(app + " is not callable: an ASGI app is a callable (scope, receive, send)");
                    }
                }
                return result;
            }
        });
    }

    private static PyRef attribute(dev.apx.python.Gil gil, PyRef module, String dotted) {
        PyRef current = module.newRef(gil);
        for (String part : dotted.split("\\.")) {
            try (PyRef previous = current) {
                current = previous.getAttr(gil, part);
            }
        }
        return current;
    }
}
