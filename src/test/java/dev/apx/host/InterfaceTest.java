package dev.apx.host;

import dev.apx.config.Interface;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.TestPython;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --interface auto} decides as Uvicorn's Config.load does; a named interface is kept as given. */
class InterfaceTest {
    private static final Interpreter PYTHON = TestPython.interpreter();

    private static Interface resolve(Interface given, String attribute) {
        PyRef app = PYTHON.call(gil -> {
            try (PyRef module = gil.importModule("apxtest.wsgi_apps")) {
                return module.getAttr(gil, attribute);
            }
        });
        try {
            return Interfaces.resolve(given, PYTHON, app);
        } finally {
            PYTHON.run(gil -> app.close());
        }
    }

    @ParameterizedTest
    @CsvSource({
            "asgi3_function, ASGI3",   // a coroutine function
            "Asgi3Class, ASGI3",       // a class whose instances are awaitable
            "asgi3_object, ASGI3",     // an object whose __call__ is a coroutine function
            "Asgi2Class, ASGI2",       // a class called with the scope
            "app, ASGI2"})             // a WSGI function: auto never picks WSGI, as in Uvicorn
    void autoDetectsAsUvicornDoes(String attribute, Interface expected) {
        assertThat(resolve(Interface.AUTO, attribute)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"WSGI", "ASGI2", "ASGI3"})
    void aNamedInterfaceIsKept(Interface given) {
        assertThat(resolve(given, "asgi3_function")).isEqualTo(given);
    }
}
