package dev.apx.server;

import java.util.List;

/**
 * {@code --header Name:Value}: headers added to every response after server and date, as Uvicorn's
 * default headers. Process-wide, set once at startup (like the log level).
 */
public final class ExtraHeaders {
    /** The parsed headers and whether one is {@code server}, set together (read for every response). */
    private record Parsed(List<String[]> headers, boolean hasServer) {
    }

    private static volatile Parsed parsed = new Parsed(List.of(), false);

    private ExtraHeaders() {
    }

    /** Parses {@code Name:Value} items; a missing colon or an empty name is an IllegalArgumentException. */
    public static void set(List<String> items) {
        List<String[]> headers = items.stream().map(ExtraHeaders::parse).toList();
        parsed = new Parsed(headers, headers.stream().anyMatch(header -> header[0].equals("server")));
    }

    static List<String[]> get() {
        return parsed.headers();
    }

    static boolean hasServer() {
        return parsed.hasServer();
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
