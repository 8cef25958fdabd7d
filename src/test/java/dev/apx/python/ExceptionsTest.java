package dev.apx.python;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Exceptions cross the boundary both ways with their type, message and Python traceback. */
@SuppressWarnings("unchecked")
class ExceptionsTest {
    private final Interpreter python = TestPython.interpreter();

    @Test
    void aPythonExceptionBecomesAJavaExceptionWithItsTraceback() {
        PythonException e = python.call(gil -> catchThrowableOfType(PythonException.class,
                () -> gil.importModule("apxtest.errors").callMethod(gil, "fail_value", "bad input: ü")));
        assertThat(e.pythonType()).isEqualTo("ValueError");
        assertThat(e.pythonMessage()).isEqualTo("bad input: ü");
        assertThat(e.getMessage()).isEqualTo("ValueError: bad input: ü");
        assertThat(e.pythonTraceback())
                .startsWith("Traceback (most recent call last):")
                .contains("apxtest/errors.py", "in fail_value", "raise ValueError(message)")
                .endsWith("ValueError: bad input: ü\n");
    }

    @Test
    void aUserDefinedExceptionKeepsItsQualifiedNameAndInnerFrames() {
        PythonException e = python.call(gil -> catchThrowableOfType(PythonException.class,
                () -> gil.importModule("apxtest.errors").callMethod(gil, "fail_nested")));
        assertThat(e.pythonType()).isEqualTo("apxtest.errors.AppError");
        assertThat(e.pythonTraceback()).contains("in inner_function_name", "apxtest.errors.AppError: deep trouble");
    }

    @Test
    void theExceptionObjectIsKept() {
        python.run(gil -> {
            PythonException e = catchThrowableOfType(PythonException.class,
                    () -> gil.importModule("apxtest.errors").callMethod(gil, "fail_value", "kept"));
            assertThat(e.exception().getAttr(gil, "args").toJava(gil)).isEqualTo(new Object[] {"kept"});
        });
    }

    @Test
    void aJavaExceptionInAJavaCallableBecomesAPythonException() {
        Object seen = python.call(gil -> {
            try (PyRef failing = gil.function("failing", (g, args) -> {
                throw new IllegalArgumentException("no " + args.get(0));
            })) {
                return TestPython.callHelper(gil, "errors", "call_and_catch", failing, "way");
            }
        });
        assertThat((List<Object>) seen).containsExactly("raised", "_apx._errors.JavaError", "java.lang.IllegalArgumentException: no way");
    }

    @Test
    void aJavaExceptionPropagatingThroughPythonComesBackWithBothSides() {
        PythonException e = python.call(gil -> catchThrowableOfType(PythonException.class, () -> {
            try (PyRef failing = gil.function("failing", (g, args) -> {
                throw new IllegalStateException("from java");
            })) {
                TestPython.callHelper(gil, "errors", "call_through", failing);
            }
        }));
        assertThat(e.pythonType()).isEqualTo("_apx._errors.JavaError");
        assertThat(e.pythonMessage()).isEqualTo("java.lang.IllegalStateException: from java");
        assertThat(e.pythonTraceback()).contains("in call_through");
    }

    @Test
    void aPythonExceptionPassingThroughJavaIsReRaisedAsItself() {
        // Python -> Java callable -> Python raises ValueError -> Java -> back in Python: still a ValueError.
        Object seen = python.call(gil -> {
            try (PyRef relay = gil.function("relay", (g, args) ->
                    g.importModule("apxtest.errors").callMethod(g, "fail_value", "original"))) {
                return TestPython.callHelper(gil, "errors", "call_and_catch", relay);
            }
        });
        assertThat((List<Object>) seen).containsExactly("raised", "builtins.ValueError", "original");
    }

    @Test
    void theErrorIndicatorIsClearAfterATranslatedException() {
        python.run(gil -> {
            catchThrowableOfType(PythonException.class, () -> gil.importModule("no_such_module_either"));
            // a following call works and sees no stale error
            assertThat(gil.importModule("apxtest.values").callMethod(gil, "add", 1, 2).toJava(gil)).isEqualTo(3L);
        });
    }
}
