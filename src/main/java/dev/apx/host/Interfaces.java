package dev.apx.host;

import dev.apx.config.Interface;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;

/**
 * {@link Interface} against a loaded app: AUTO picks ASGI3 or ASGI2 as Uvicorn does (never WSGI);
 * an ASGI2 app is served through {@code _apx._interface.asgi2}'s ASGI 3 adapter.
 */
public final class Interfaces {
    private Interfaces() {
    }

    /** {@code given}, or for AUTO what the loaded app is. */
    public static Interface resolve(Interface given, Interpreter interpreter, PyRef app) {
        if (given != Interface.AUTO) {
            return given;
        }
        String detected = interpreter.call(gil -> {
            try (PyRef module = gil.importModule("_apx._interface"); PyRef kind = module.callMethod(gil, "detect", app)) {
                return kind.str(gil);
            }
        });
        return Interface.valueOf(detected.toUpperCase(java.util.Locale.ROOT));
    }

    /** The app as an ASGI 3 callable (a new reference): the ASGI2 adapter around it, or the app itself. */
    public static PyRef asAsgi3(Interface kind, Interpreter interpreter, PyRef app) {
        return interpreter.call(gil -> {
            if (kind != Interface.ASGI2) {
                return app.newRef(gil);
            }
            try (PyRef module = gil.importModule("_apx._interface")) {
                return module.callMethod(gil, "asgi2", app);
            }
        });
    }
}
