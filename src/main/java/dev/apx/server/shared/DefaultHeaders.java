package dev.apx.server.shared;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

/**
 * The headers the server adds first to every response, as Uvicorn does: server, date, then {@code --header}'s.
 * AsciiStrings, which the encoders copy whole.
 */
public final class DefaultHeaders {
    private static final AsciiString SERVER_NAME = AsciiString.cached("server");
    private static final AsciiString SERVER_VALUE = AsciiString.cached("apx");
    private static final AsciiString DATE_NAME = AsciiString.cached("date");

    private DefaultHeaders() {
    }

    /** How many array slots {@link #put} fills: two per header. */
    public static int slots(ServerConfig config) {
        return (server(config) ? 2 : 0) + (config.dateHeader() ? 2 : 0) + ExtraHeaders.fields().length;
    }

    /** Puts the headers as name, value pairs into {@code fields} from {@code at}; returns the next free index. */
    public static int put(AsciiString[] fields, int at, ServerConfig config) {
        if (server(config)) {
            fields[at++] = SERVER_NAME;
            fields[at++] = SERVER_VALUE;
        }
        if (config.dateHeader()) {
            fields[at++] = DATE_NAME;
            fields[at++] = DateHeader.now();
        }
        AsciiString[] extra = ExtraHeaders.fields();
        System.arraycopy(extra, 0, fields, at, extra.length);
        return at + extra.length;
    }

    public static void add(HttpHeaders headers, ServerConfig config) {
        AsciiString[] fields = new AsciiString[slots(config)];
        put(fields, 0, config);
        for (int i = 0; i < fields.length; i += 2) {
            headers.add(fields[i], fields[i + 1]);
        }
    }

    private static boolean server(ServerConfig config) {
        return config.serverHeader() && !ExtraHeaders.hasServer(); // --header server:X replaces it, as in Uvicorn
    }
}
