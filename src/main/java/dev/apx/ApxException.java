package dev.apx;

/**
 * Python or the app could not be set up: the interpreter does not start, the app's import raises,
 * its lifespan startup fails. The message names the cause (with the Python traceback when there is one).
 */
public final class ApxException extends RuntimeException {
    ApxException(String message, Throwable cause) {
        super(message, cause);
    }

    ApxException(String message) {
        super(message);
    }
}
