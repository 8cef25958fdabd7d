package dev.apx.asgi;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the fields of an app's message (already converted to Java) with ASGI's types and defaults;
 * a wrong one throws {@link Invalid} with the reason the app will see.
 */
public final class Messages {
    public static final class Invalid extends RuntimeException {
        public Invalid(String message) {
            super(message);
        }
    }

    private static final byte[] EMPTY = new byte[0];

    private Messages() {
    }

    public static String type(Object message) {
        if (!(message instanceof Map<?, ?> map)) {
            throw new Invalid("ASGI message must be a dict, got " + typeName(message));
        }
        if (!(map.get("type") instanceof String type)) {
            throw new Invalid("ASGI message needs a str 'type', got " + map);
        }
        return type;
    }

    public static int status(Object status) {
        if (!(status instanceof Long code) || code < 100 || code > 999) {
            throw new Invalid("http.response.start 'status' must be an int between 100 and 999, got " + status);
        }
        return code.intValue();
    }

    /** A bytes field; None or absent is empty. */
    public static byte[] bytes(String key, Object value) {
        if (value == null) {
            return EMPTY;
        }
        if (value instanceof byte[] bytes) {
            return bytes;
        }
        throw new Invalid("'" + key + "' must be bytes, got " + typeName(value));
    }

    /** A bool field; None or absent is false (as Uvicorn, which only tests its truth). */
    public static boolean flag(String key, Object value) {
        if (value == null) {
            return false;
        }
        if (value instanceof Boolean flag) {
            return flag;
        }
        throw new Invalid("'" + key + "' must be a bool, got " + typeName(value));
    }

    /** Headers as ISO-8859-1 string pairs, from a list or tuple of 2-item sequences of bytes. */
    public static List<String[]> headers(Object value) {
        if (value == null) {
            return List.of();
        }
        List<?> list = value instanceof Object[] tuple ? java.util.Arrays.asList(tuple) : value instanceof List<?> l ? l : null;
        if (list == null) {
            throw new Invalid("'headers' must be a list of (bytes, bytes), got " + typeName(value));
        }
        List<String[]> headers = new ArrayList<>(list.size());
        for (Object item : list) {
            List<?> pair = item instanceof Object[] tuple ? java.util.Arrays.asList(tuple) : item instanceof List<?> l ? l : null;
            if (pair == null || pair.size() != 2 || !(pair.get(0) instanceof byte[] name) || !(pair.get(1) instanceof byte[] text)) {
                throw new Invalid("each header must be a pair of bytes, got " + describe(item));
            }
            String headerName = new String(name, StandardCharsets.ISO_8859_1);
            String headerValue = new String(text, StandardCharsets.ISO_8859_1);
            if (!validToken(headerName) || headerValue.indexOf('\r') >= 0 || headerValue.indexOf('\n') >= 0) {
                throw new Invalid("invalid header " + describe(item));
            }
            headers.add(new String[]{headerName, headerValue});
        }
        return headers;
    }

    /**
     * The body length the headers promise: the content-length value (every copy the same), or -1
     * without one. A value that is not a plain decimal number is refused: the client could not
     * frame the body, nor anything after it on the connection.
     */
    public static long contentLength(List<String[]> headers) {
        long length = -1;
        for (String[] header : headers) {
            if (header[0].equalsIgnoreCase("content-length")) {
                String value = header[1].strip();
                if (value.isEmpty() || value.length() > 18 || !digits(value)) {
                    throw new Invalid("invalid content-length " + header[1]);
                }
                long parsed = Long.parseLong(value);
                if (length >= 0 && parsed != length) {
                    throw new Invalid("conflicting content-length values " + length + " and " + parsed);
                }
                length = parsed;
            }
        }
        return length;
    }

    /** Only ASCII digits (a loop, not a stream: this runs for every response). */
    private static boolean digits(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static boolean validToken(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c >= 127 || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** A value as Python would print it (b'...' for bytes), for error messages. */
    static String describe(Object item) {
        if (item instanceof byte[] bytes) {
            StringBuilder out = new StringBuilder("b'");
            for (byte b : bytes) {
                int c = b & 0xff;
                if (c == '\\' || c == '\'') {
                    out.append('\\').append((char) c);
                } else if (c >= 0x20 && c < 0x7f) {
                    out.append((char) c);
                } else if (c == '\r' || c == '\n' || c == '\t') {
                    out.append(c == '\r' ? "\\r" : c == '\n' ? "\\n" : "\\t");
                } else {
                    out.append(String.format("\\x%02x", c));
                }
            }
            return out.append('\'').toString();
        }
        if (item instanceof String text) {
            return "'" + text + "'";
        }
        if (item instanceof Object[] tuple) {
            return describeAll(java.util.Arrays.asList(tuple), "(", ")");
        }
        if (item instanceof List<?> list) {
            return describeAll(list, "[", "]");
        }
        return String.valueOf(item);
    }

    private static String describeAll(List<?> items, String open, String close) {
        StringBuilder out = new StringBuilder(open);
        for (int i = 0; i < items.size(); i++) {
            out.append(i == 0 ? "" : ", ").append(describe(items.get(i)));
        }
        return out.append(close).toString();
    }

    public static String typeName(Object value) {
        return value == null ? "None" : value instanceof byte[] ? "bytes" : value instanceof String ? "str"
                : value instanceof Long ? "int" : value instanceof Boolean ? "bool" : value instanceof List<?> ? "list"
                : value instanceof Map<?, ?> ? "dict" : value instanceof Object[] ? "tuple" : value.getClass().getSimpleName();
    }
}
