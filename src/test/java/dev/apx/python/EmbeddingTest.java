package dev.apx.python;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The embedded interpreter is the one {@code <venv>/bin/python -c "import app"} would run. */
class EmbeddingTest {
    private final Interpreter python = TestPython.interpreter();

    @Test
    void sysPathIsExactlyWhatTheVenvPythonSees() throws Exception {
        Process process = new ProcessBuilder(TestPython.python().toString(), "-c",
                "import sys; print('\\n'.join(sys.path))").start();
        List<String> expected = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertThat(process.waitFor()).isZero();
        List<?> embedded = TestPython.startingSysPath(); // before other tests' apps put their directories first
        // ...followed only by apx's own helpers and, in tests, the test helpers
        assertThat(embedded.subList(0, expected.size())).isEqualTo(expected);
        assertThat(embedded.subList(expected.size(), embedded.size())).allSatisfy(entry ->
                assertThat(entry.toString()).endsWith("/python"));
    }

    @Test
    void itIsTheVenvWithItsPackages() throws Exception {
        Path venv = TestPython.venv().toRealPath();
        python.run(gil -> {
            try (PyRef sys = gil.importModule("sys"); PyRef anyio = gil.importModule("anyio")) {
                assertThat(realPath(sys.getAttr(gil, "prefix").str(gil))).isEqualTo(venv);
                assertThat(sys.getAttr(gil, "version").str(gil)).startsWith(python.install().version());
                assertThat(realPath(anyio.getAttr(gil, "__file__").str(gil))).startsWith(venv);
            }
        });
    }

    private static Path realPath(String path) {
        try {
            return Path.of(path).toRealPath();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void extensionModulesLoad() {
        // Loaded without RTLD_GLOBAL these fail with "undefined symbol: PyByteArray_Type" and friends.
        python.run(gil -> {
            for (String module : List.of("_socket", "_asyncio", "_ssl", "_json", "_decimal", "select", "math")) {
                gil.importModule(module).close();
            }
        });
    }

    @Test
    void pythonDoesNotOwnTheSignals() {
        Object handler = python.call(gil -> {
            try (PyRef signal = gil.importModule("signal"); PyRef sigint = signal.getAttr(gil, "SIGINT")) {
                return signal.callMethod(gil, "getsignal", sigint).repr(gil);
            }
        });
        // None: "not installed from Python" (Py_InitializeEx(1) would give default_int_handler)
        assertThat(handler).as("Java handles SIGINT; Python installed no handler").isEqualTo("None");
    }
}
