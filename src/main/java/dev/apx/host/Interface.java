package dev.apx.host;

import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;

/**
 * {@code --interface}: the protocol the app speaks. AUTO picks ASGI3 or ASGI2 as Uvicorn does
 * (never WSGI); an ASGI2 app is served through {@code _apx._interface.asgi2}'s ASGI 3 adapter.
 */
public enum Interface {
    AUTO, ASGI3, ASGI2, WSGI;

    /** AUTO resolved against the loaded app. */
    public Interface resolve(Interpreter interpreter, PyRef app) {
        if (this != AUTO) {
            return this;
        }
        String detected = interpreter.call(gil -> {
            try (PyRef module = gil.importModule("_apx._interface"); PyRef kind = module.callMethod(gil, "detect", app)) {
                return kind.str(gil);
            }
        });
        return valueOf(detected.toUpperCase(java.util.Locale.ROOT));
    }

    /** The app as an ASGI 3 callable (a new reference): the ASGI2 adapter around it, or the app itself. */
    public PyRef asAsgi3(Interpreter interpreter, PyRef app) {
        return interpreter.call(gil -> {
            if (this != ASGI2) {
                return app.newRef(gil);
            }
            try (PyRef module = gil.importModule("_apx._interface")) {
                return module.callMethod(gil, "asgi2", app);
            }
        });
    }
}
