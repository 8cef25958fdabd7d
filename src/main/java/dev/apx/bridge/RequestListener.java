package dev.apx.bridge;

import dev.apx.python.Gil;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;

/** Told once when a request's coroutine ends; runs on the driving thread with the GIL held. */
@FunctionalInterface
public interface RequestListener {
    /**
     * @param result the coroutine's return value (None when it failed)
     * @param error  what it raised ({@code CancelledError} when cancelled), or null
     */
    void completed(Gil gil, Request request, PyRef result, PythonException error);
}
