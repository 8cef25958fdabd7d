package dev.apx.server;

import io.netty.handler.codec.http.HttpHeaders;

/** The headers the server adds first to every response, as Uvicorn does: server, date, then {@code --header}'s. */
final class DefaultHeaders {
    static final String SERVER = "apx";

    private DefaultHeaders() {
    }

    static void add(HttpHeaders headers, ServerConfig config) {
        if (config.serverHeader() && !ExtraHeaders.hasServer()) { // --header server:X replaces it, as in Uvicorn
            headers.add("server", SERVER);
        }
        if (config.dateHeader()) {
            headers.add("date", DateHeader.now());
        }
        for (String[] header : ExtraHeaders.get()) {
            headers.add(header[0], header[1]);
        }
    }
}
