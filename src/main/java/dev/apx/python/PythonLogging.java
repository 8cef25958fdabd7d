package dev.apx.python;

import dev.apx.log.Log;

/**
 * apx inside a host's JVM: Python's {@code logging} records to SLF4J ({@code _apx._slf4j}), so the
 * host's Logback or Log4j 2 configuration applies to them as to its own.
 *
 * <p>The GIL: a record's values are read with the GIL held, then the GIL is released while SLF4J's
 * appenders run (their I/O would otherwise stop every Python thread, as a {@code StreamHandler}'s
 * write releases it in Python). An appender that enters Python on the logging thread fails fast
 * ({@link Interpreter#call} refuses inside {@link Gil#allowThreads}); one that waits for another
 * thread's Python work must not: the logging thread may be the asyncio loop's own.
 */
final class PythonLogging {
    private PythonLogging() {
    }

    /** Puts the handler on Python's root logger; the GIL is held, before any app is imported. */
    static void install(Gil gil) {
        try (PyRef module = gil.importModule("_apx._slf4j");
             PyRef emit = gil.function("emit", PythonLogging::emit);
             PyRef threshold = gil.function("threshold", (inner, args) -> (long) Log.pythonThreshold((String) args.get(0)))) {
            module.callMethod(gil, "install", emit, threshold).close();
        }
    }

    private static Object emit(Gil gil, Args args) {
        String name = (String) args.get(0);
        int level = ((Long) args.get(1)).intValue();
        String text = (String) args.get(2);
        gil.allowThreads(() -> Log.python(name, level, text));
        return null;
    }
}
