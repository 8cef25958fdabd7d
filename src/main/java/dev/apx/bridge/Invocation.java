package dev.apx.bridge;

import dev.apx.python.Gil;
import dev.apx.python.PyRef;

/** Makes a request's awaitable, e.g. {@code app(scope, receive, send)}; runs on the driving thread. */
@FunctionalInterface
public interface Invocation {
    PyRef invoke(Gil gil, Request request);
}
