package dev.apx.server.http1;

import io.netty.handler.codec.http.HttpResponseStatus;

/** Why the server refused a request itself, and with which status; set as the failed decoder result. */
final class RequestRejected extends IllegalArgumentException {
    private final transient HttpResponseStatus status;

    RequestRejected(HttpResponseStatus status, String reason) {
        super(reason);
        this.status = status;
    }

    HttpResponseStatus status() {
        return status;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this; // a client's mistake, not ours: the stack says nothing
    }
}
