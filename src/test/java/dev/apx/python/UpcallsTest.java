package dev.apx.python;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Java functions are real Python callables. */
@SuppressWarnings("unchecked")
class UpcallsTest {
    private final Interpreter python = TestPython.interpreter();

    @Test
    void pythonCallsJavaWithArgumentsAndGetsTheResult() {
        Object result = python.call(gil -> {
            try (PyRef join = gil.function("join", (g, args) -> args.get(0) + "+" + args.get(1) + "+" + args.size())) {
                assertThat(join.getAttr(gil, "__name__").toJava(gil)).isEqualTo("join");
                return join.call(gil, "a", 7).toJava(gil);
            }
        });
        assertThat(result).isEqualTo("a+7+2");
    }

    @Test
    void javaCallablesWorkWherePythonExpectsACallable() {
        Object sorted = python.call(gil -> {
            try (PyRef byLength = gil.function("by_length", (g, args) -> ((String) args.get(0)).length());
                 PyRef builtins = gil.importModule("builtins")) {
                return builtins.getAttr(gil, "sorted").callWithKeywords(gil, List.of(List.of("ccc", "a", "bb")), java.util.Map.of("key", byLength)).toJava(gil);
            }
        });
        assertThat((List<Object>) sorted).containsExactly("a", "bb", "ccc");
    }

    @Test
    void keywordArgumentsAreRefusedByPython() {
        PythonException e = python.call(gil -> catchThrowableOfType(PythonException.class, () -> {
            try (PyRef f = gil.function("positional_only", (g, args) -> null)) {
                f.callWithKeywords(gil, List.of(), java.util.Map.of("x", 1));
            }
        }));
        assertThat(e.pythonType()).isEqualTo("TypeError");
        assertThat(e.pythonMessage()).contains("keyword arguments");
    }

    @Test
    void aPythonThreadCanCallJava() {
        AtomicReference<String> calledOn = new AtomicReference<>();
        Object result = python.call(gil -> {
            try (PyRef twice = gil.function("twice", (g, args) -> {
                calledOn.set(Thread.currentThread().getName());
                return (Long) args.get(0) * 2;
            })) {
                return TestPython.callHelper(gil, "threads", "call_from_thread", twice, 21);
            }
        });
        assertThat(result).isEqualTo(42L);
        assertThat(calledOn.get()).isNotEqualTo(Thread.currentThread().getName());
    }

    @Test
    void argumentsCanBeKeptBeyondTheCall() {
        PyRef kept = python.call(gil -> {
            AtomicReference<PyRef> box = new AtomicReference<>();
            try (PyRef keep = gil.function("keep", (g, args) -> {
                box.set(args.ref(0));
                return null;
            })) {
                keep.call(gil, List.of(1, 2, 3)).close();
            }
            return box.get();
        });
        python.run(gil -> assertThat(kept.toJava(gil)).isEqualTo(List.of(1L, 2L, 3L)));
        kept.close();
    }

    @Test
    void droppingTheFunctionInPythonReleasesTheJavaSide() {
        python.run(gil -> {
            int before = python.callables().size();
            PyRef f = gil.function("short_lived", (g, args) -> 1);
            assertThat(python.callables().size()).isEqualTo(before + 1);
            f.close();
            assertThat(python.callables().size()).isEqualTo(before);
        });
    }
}
