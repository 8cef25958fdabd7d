package dev.apx.python.capi;

/** libpython, or one of the symbols apx needs from it, could not be loaded. */
public final class LibraryLoadException extends RuntimeException {
    public LibraryLoadException(String message) {
        super(message);
    }
}
