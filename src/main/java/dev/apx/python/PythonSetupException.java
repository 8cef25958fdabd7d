package dev.apx.python;

/**
 * apx cannot use the Python it was pointed at. The message is one line a user can act on; the
 * command line prints it and exits non-zero.
 */
public final class PythonSetupException extends RuntimeException {
    public PythonSetupException(String message) {
        super(message);
    }
}
