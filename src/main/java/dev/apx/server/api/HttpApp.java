package dev.apx.server.api;

/**
 * What the server calls for each request: the ASGI layer implements it. No Netty or Python types
 * cross this boundary. {@link #open} runs on the connection's event-loop thread.
 */
@FunctionalInterface
public interface HttpApp {
    /** Starts handling {@code head}; the response goes to {@code response} (any thread). */
    Exchange open(RequestHead head, Response response);
}
