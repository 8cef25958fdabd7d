package dev.apx.python;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every supported type goes Java -> Python -> Java unchanged, and has the Python type it should. */
class ConversionsTest {
    private final Interpreter python = TestPython.interpreter();

    static Stream<Object[]> values() {
        byte[] mebibyte = new byte[1 << 20];
        new Random(7).nextBytes(mebibyte);
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("list", List.of(1L, "two", List.of(3.5, Arrays.asList(null, true))));
        nested.put("tuple", new Object[] {1L, new Object[] {"in", "ner"}});
        nested.put("dict", Map.of("k", Map.of("deep", new byte[] {1, 2})));
        return Stream.of(
                new Object[] {null, "NoneType"},
                new Object[] {true, "bool"},
                new Object[] {false, "bool"},
                new Object[] {0L, "int"},
                new Object[] {-1L, "int"},
                new Object[] {Long.MAX_VALUE, "int"},
                new Object[] {Long.MIN_VALUE, "int"},
                new Object[] {BigInteger.TWO.pow(100), "int"},
                new Object[] {BigInteger.TWO.pow(64).negate().subtract(BigInteger.ONE), "int"},
                new Object[] {new BigInteger("123456789012345678901234567890123456789012345678901234567890"), "int"},
                new Object[] {0.0, "float"},
                new Object[] {-1.5e-300, "float"},
                new Object[] {Double.MAX_VALUE, "float"},
                new Object[] {Double.POSITIVE_INFINITY, "float"},
                new Object[] {"", "str"},
                new Object[] {"hello", "str"},
                new Object[] {"héllo wörld ✓ 日本語 🎉 \u0000 nul", "str"},
                // larger than a thread's 64 KiB of scratch memory: the arena path
                new Object[] {"a".repeat(70_000), "str"},
                new Object[] {"ascii first, then " + "ü".repeat(40_000), "str"},
                new Object[] {new byte[0], "bytes"},
                new Object[] {mebibyte, "bytes"},
                new Object[] {List.of(), "list"},
                new Object[] {new ArrayList<>(List.of(1L, "a", 2.5)), "list"},
                new Object[] {new Object[0], "tuple"},
                new Object[] {new Object[] {1L, "b", null}, "tuple"},
                new Object[] {Map.of(), "dict"},
                new Object[] {nested, "dict"});
    }

    @ParameterizedTest
    @MethodSource("values")
    void roundTripsWithThePythonTypeItShouldHave(Object value, String pythonType) {
        python.run(gil -> {
            try (PyRef object = gil.of(value)) {
                assertThat(TestPython.callHelper(gil, "values", "type_name", object)).isEqualTo(pythonType);
                assertThat(sameValue(object.toJava(gil), value)).as("%s round-trips", pythonType).isTrue();
                // and back through a Python function call, not just our own conversion
                try (PyRef echoed = gil.importModule("apxtest.values").callMethod(gil, "echo", object)) {
                    assertThat(sameValue(echoed.toJava(gil), value)).as("%s echoes", pythonType).isTrue();
                }
            }
        });
    }

    /** Structural equality that looks inside arrays nested in lists and maps (AssertJ's recursive comparison is too slow for 1 MiB). */
    static boolean sameValue(Object actual, Object expected) {
        if (expected instanceof byte[] bytes) {
            return actual instanceof byte[] other && Arrays.equals(bytes, other);
        }
        if (expected instanceof Object[] items) {
            return actual instanceof Object[] other && sameItems(Arrays.asList(other), Arrays.asList(items));
        }
        if (expected instanceof List<?> items) {
            return actual instanceof List<?> other && sameItems(other, items);
        }
        if (expected instanceof Map<?, ?> map) {
            return actual instanceof Map<?, ?> other && other.size() == map.size()
                    && map.entrySet().stream().allMatch(e -> other.containsKey(e.getKey()) && sameValue(other.get(e.getKey()), e.getValue()));
        }
        if (expected instanceof Integer i) {
            return Long.valueOf(i).equals(actual);
        }
        return java.util.Objects.equals(actual, expected);
    }

    private static boolean sameItems(List<?> actual, List<?> expected) {
        if (actual.size() != expected.size()) {
            return false;
        }
        for (int i = 0; i < expected.size(); i++) {
            if (!sameValue(actual.get(i), expected.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Test
    void nanSurvives() {
        Object back = python.call(gil -> gil.of(Double.NaN).toJava(gil));
        assertThat((Double) back).isNaN();
    }

    @Test
    void javaIntegersOfEverySizeBecomePythonInts() {
        python.run(gil -> {
            for (Object value : List.of((byte) 7, (short) -300, 70_000, 1.25f)) {
                try (PyRef object = gil.of(value)) {
                    assertThat(object.str(gil)).isEqualTo(value instanceof Float ? "1.25" : value.toString());
                }
            }
        });
    }

    @Test
    void subclassesOfBuiltinsConvertLikeTheirBase() {
        Object samples = python.call(gil -> TestPython.callHelper(gil, "values", "samples"));
        assertThat(samples).isInstanceOf(Map.class);
        Map<?, ?> map = (Map<?, ?>) samples;
        assertThat(map.get("int_enum")).isEqualTo(1L);
        assertThat(map.get("str_subclass")).isEqualTo("sub");
        assertThat(new ArrayList<Object>(((Map<?, ?>) map.get("ordered")).keySet())).containsExactly("b", "a");
        assertThat(map.get("big")).isEqualTo(BigInteger.TWO.pow(100));
        assertThat(map.get("neg_big")).isEqualTo(BigInteger.TWO.pow(100).negate());
        Map<?, ?> nested = (Map<?, ?>) map.get("nested");
        assertThat((byte[]) nested.get("bytes")).containsExactly(0, -1);
        List<?> list = (List<?>) nested.get("list");
        assertThat(list.get(0)).isEqualTo(1L);
        assertThat((Object[]) list.get(1)).containsExactly(2L, 3L);
    }

    @Test
    void otherObjectsComeBackAsReferences() {
        python.run(gil -> {
            try (PyRef module = gil.importModule("apxtest.values")) {
                Object back = module.toJava(gil);
                assertThat(back).isInstanceOf(PyRef.class);
                try (PyRef ref = (PyRef) back) {
                    assertThat(ref.repr(gil)).startsWith("<module 'apxtest.values'");
                }
            }
        });
    }

    @Test
    void unsupportedJavaValuesFailWithTheirClassName() {
        python.run(gil -> assertThatThrownBy(() -> gil.of(new Object()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot convert java.lang.Object"));
    }

    @Test
    void callsTakePositionalAndKeywordArguments() {
        python.run(gil -> {
            try (PyRef add = gil.importModule("apxtest.values").getAttr(gil, "add")) {
                assertThat(add.call(gil, 2, 3).toJava(gil)).isEqualTo(5L);
                assertThat(add.callWithKeywords(gil, List.of(2), Map.of("b", 3, "scale", 10)).toJava(gil)).isEqualTo(50L);
                assertThatThrownBy(() -> add.callWithKeywords(gil, List.of(1), Map.of("nope", 1)))
                        .isInstanceOf(PythonException.class)
                        .hasMessageContaining("TypeError")
                        .hasMessageContaining("nope");
            }
        });
    }

    @Test
    void aCallWithMoreArgumentsThanScratchMemoryHoldsPassesEveryOne() {
        Object[] args = new Object[10_000]; // 80,000 bytes of argument vector: past the 64 KiB of scratch
        for (int i = 0; i < args.length; i++) {
            args[i] = "arg" + i;
        }
        python.run(gil -> {
            try (PyRef packed = gil.importModule("apxtest.values").callMethod(gil, "pack", args)) {
                assertThat((Object[]) packed.toJava(gil)).containsExactly(args);
            }
        });
    }

    @Test
    void attributesCanBeReadAndWritten() {
        python.run(gil -> {
            try (PyRef types = gil.importModule("types");
                 PyRef namespace = types.callMethod(gil, "SimpleNamespace")) {
                namespace.setAttr(gil, "answer", 42);
                assertThat(namespace.getAttr(gil, "answer").toJava(gil)).isEqualTo(42L);
                assertThatThrownBy(() -> namespace.getAttr(gil, "missing"))
                        .isInstanceOf(PythonException.class)
                        .satisfies(e -> assertThat(((PythonException) e).pythonType()).isEqualTo("AttributeError"));
            }
        });
    }

    @Test
    void importErrorsAreModuleNotFoundErrors() {
        python.run(gil -> assertThatThrownBy(() -> gil.importModule("no_such_module_here"))
                .isInstanceOf(PythonException.class)
                .satisfies(e -> assertThat(((PythonException) e).pythonType()).isEqualTo("ModuleNotFoundError")));
    }
}
