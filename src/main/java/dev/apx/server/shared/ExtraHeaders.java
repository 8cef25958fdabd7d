package dev.apx.server.shared;

import io.netty.util.AsciiString;

import java.util.List;

/**
 * {@code --header Name:Value}: headers added to every response after server and date, as Uvicorn's
 * default headers. Process-wide, set once at startup (like the log level).
 */
public final class ExtraHeaders {
    /** The headers as name, value, name, value, ... and whether one is {@code server} or {@code connection}, set together (read for every response). */
    private record Parsed(AsciiString[] fields, boolean hasServer, boolean hasConnection) {
    }

    private static volatile Parsed parsed = new Parsed(new AsciiString[0], false, false);

    private ExtraHeaders() {
    }

    /** Parses {@code Name:Value} items; a missing colon or an empty name is an IllegalArgumentException. */
    public static void set(List<String> items) {
        AsciiString[] fields = new AsciiString[2 * items.size()];
        boolean hasServer = false;
        boolean hasConnection = false;
        for (int i = 0; i < items.size(); i++) {
            String[] header = parse(items.get(i));
            fields[2 * i] = new AsciiString(header[0]);
            fields[2 * i + 1] = new AsciiString(header[1]);
            hasServer |= header[0].equals("server");
            hasConnection |= header[0].equals("connection");
        }
        parsed = new Parsed(fields, hasServer, hasConnection);
    }

    /** name, value, name, value, ...: not to be changed. */
    static AsciiString[] fields() {
        return parsed.fields();
    }

    static boolean hasServer() {
        return parsed.hasServer();
    }

    /** Whether one is {@code connection}: the server then adds none of its own (the default headers hold no other). */
    public static boolean hasConnection() {
        return parsed.hasConnection();
    }

    private static String[] parse(String item) {
        int colon = item.indexOf(':');
        String name = colon < 0 ? "" : item.substring(0, colon).strip();
        if (name.isEmpty() || !name.chars().allMatch(c -> c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
            throw new IllegalArgumentException("--header must be Name:Value with a valid header name, got '" + item + "'");
        }
        return new String[] {name.toLowerCase(java.util.Locale.ROOT), item.substring(colon + 1).strip()};
    }
}
