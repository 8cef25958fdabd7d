package dev.apx.python;

/**
 * The Java body of a Python callable made by {@link Gil#function}. It runs on the thread that
 * called it from Python, with the GIL held, so it must not block for long.
 *
 * <p>The result is converted like {@link Gil#of} ({@code null} becomes {@code None}). A thrown
 * {@link PythonException} re-raises its original Python exception; any other throwable raises
 * {@code _apx._errors.JavaError} with the Java class name and message.
 */
@FunctionalInterface
public interface JavaFunction {
    Object call(Gil gil, Args args) throws Exception;
}
