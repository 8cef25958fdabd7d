package dev.apx.python;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The interpreter every test of one JVM shares (CPython is initialised once per process). Which
 * Python it embeds comes from the system property {@code apx.test.python}, set per Surefire
 * execution to .venv/py3.11, py3.12 or py3.13 (bin/venvs makes them).
 */
public final class TestPython {
    private static Interpreter interpreter;
    private static List<?> startingSysPath; // before any test's app load puts its directory first
    private static Interpreter isolated;

    private TestPython() {
    }

    /**
     * sys.path as the interpreter started with it: the tests of one Python share one interpreter, and
     * every app loaded with an app directory (as {@code --app-dir} does) puts that directory first.
     */
    public static synchronized List<?> startingSysPath() {
        interpreter();
        return startingSysPath;
    }

    public static synchronized Interpreter interpreter() {
        if (interpreter == null) {
            Interpreter started = Interpreter.start(install());
            startingSysPath = started.call(gil -> {
                try (PyRef sys = gil.importModule("sys")) {
                    return (List<?>) sys.getAttr(gil, "path").toJava(gil);
                }
            });
            interpreter = withTestHelpers(started);
        }
        return interpreter;
    }

    /** A second runtime of the same Python in a glibc namespace of its own, shared by the tests of one JVM. */
    public static synchronized Interpreter isolated() {
        if (isolated == null) {
            isolated = withTestHelpers(Interpreter.startIsolated(install()));
        }
        return isolated;
    }

    /** {@code runtime} with apx's test helpers (apxtest) on its sys.path. */
    static Interpreter withTestHelpers(Interpreter runtime) {
        Path testHelpers = Path.of("target/test-classes/python").toAbsolutePath();
        runtime.run(gil -> {
            try (PyRef sys = gil.importModule("sys"); PyRef path = sys.getAttr(gil, "path")) {
                path.callMethod(gil, "append", testHelpers.toString()).close();
            }
        });
        return runtime;
    }

    /**
     * Whether this venv has the frameworks, uvloop and the clients (the 3.11 venv, and the 3.14 and
     * 3.15 venvs of the Debian testing root: {@code -Dapx.test.frameworks=true}, pom.xml). The
     * 3.12 and 3.13 venvs have only what the bridge needs.
     */
    public static boolean frameworks() {
        return Boolean.getBoolean("apx.test.frameworks") || install().minorVersion().equals("3.11");
    }

    public static PythonInstall install() {
        return PythonInstall.probe(python(), "apx.test.python");
    }

    public static Path python() {
        String property = System.getProperty("apx.test.python");
        if (property == null || !Files.isExecutable(Path.of(property))) {
            throw new IllegalStateException("apx.test.python is " + property + "; run the tests with bin/test (it makes .venv/)");
        }
        return Path.of(property);
    }

    /** The test venv's directory (the parent of bin/). */
    public static Path venv() {
        return python().getParent().getParent();
    }

    /** Runs a Python expression from apxtest helpers: {@code module.function(args...)} converted to Java. */
    public static Object callHelper(Gil gil, String module, String function, Object... args) {
        try (PyRef mod = gil.importModule("apxtest." + module); PyRef result = mod.callMethod(gil, function, args)) {
            return result.toJava(gil);
        }
    }

    public static Optional<String> env(String name) {
        return Optional.ofNullable(System.getenv(name));
    }
}
