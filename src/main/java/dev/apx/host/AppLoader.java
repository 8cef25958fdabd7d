package dev.apx.host;

import dev.apx.python.Gil;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;
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
            String moduleName = app.substring(0, colon);
            try (PyRef module = importApp(gil, moduleName, appDir);
                 PyRef target = attribute(gil, module, moduleName, app.substring(colon + 1));
                 PyRef builtins = gil.importModule("builtins");
                 PyRef callable = builtins.getAttr(gil, "callable")) {
                PyRef result = factory ? target.call(gil) : target.newRef(gil);
                try (PyRef check = callable.call(gil, result)) {
                    if (!check.isTrue(gil)) {
                        result.close();
                        throw new PythonSetupException(app + " is not callable: an ASGI app takes (scope, receive, send), a WSGI app (environ, start_response)");
                    }
                }
                return result;
            }
        });
    }

    /** The module; {@link AppNotFound} when it (or a package above it) does not exist, not when its own import fails. */
    private static PyRef importApp(Gil gil, String moduleName, Path appDir) {
        try {
            return gil.importModule(moduleName);
        } catch (PythonException e) {
            String missing = e.pythonType().equals("ModuleNotFoundError") ? missingModule(gil, e) : null;
            if (missing != null && (moduleName.equals(missing) || moduleName.startsWith(missing + "."))) {
                throw new AppNotFound("no module named '" + missing + "' in " + appDir.toAbsolutePath().normalize()
                        + " or on the Python's sys.path");
            }
            throw e; // the app's own import raised: its traceback tells where
        }
    }

    private static String missingModule(Gil gil, PythonException e) {
        try (PyRef name = e.exception().getAttr(gil, "name")) {
            return name.isNone(gil) ? null : name.str(gil);
        } catch (PythonException unreadable) {
            return null;
        }
    }

    private static PyRef attribute(Gil gil, PyRef module, String moduleName, String dotted) {
        PyRef current = module.newRef(gil);
        String owner = "module '" + moduleName + "'";
        StringBuilder walked = new StringBuilder(moduleName).append(':');
        for (String part : dotted.split("\\.")) {
            try (PyRef previous = current) {
                current = previous.getAttr(gil, part);
            } catch (PythonException e) {
                if (!e.pythonType().equals("AttributeError")) {
                    throw e; // a module __getattr__ or a property raised something else: its traceback tells what
                }
                throw new AppNotFound("attribute '" + part + "' not found in " + owner);
            }
            walked.append(walked.charAt(walked.length() - 1) == ':' ? "" : ".").append(part);
            owner = "'" + walked + "'";
        }
        return current;
    }
}
