package dev.apx.wsgi;

import java.util.ArrayList;
import java.util.List;

/**
 * start_response's status and headers, checked as PEP 3333 asks: a status "NNN Reason", headers a
 * list of (name, value) str pairs. A CR or LF anywhere would let an app's data (a redirect target
 * taken from the query string, say) split the response, so it is refused, as Gunicorn does.
 */
final class WsgiHeaders {
    /** What start_response was given that cannot go on the wire; the app sees it as an exception. */
    static final class Invalid extends IllegalArgumentException {
        Invalid(String message) {
            super(message);
        }
    }

    private WsgiHeaders() {
    }

    static int statusCode(Object status) {
        if (!(status instanceof String text) || text.length() < 3 || (text.length() > 3 && text.charAt(3) != ' ')) {
            throw new Invalid("WSGI status must be a str like '200 OK', got " + describe(status));
        }
        int code;
        try {
            code = Integer.parseInt(text, 0, 3, 10);
        } catch (NumberFormatException e) {
            throw new Invalid("WSGI status must start with a 3-digit code, got " + describe(status));
        }
        if (code < 100 || hasControl(text) || !latin1(text)) {
            throw new Invalid("invalid WSGI status " + describe(status));
        }
        return code;
    }

    static List<String[]> headers(Object headers) {
        if (!(headers instanceof List<?> list)) {
            throw new Invalid("WSGI headers must be a list of (name, value) tuples, got " + describe(headers));
        }
        List<String[]> out = new ArrayList<>(list.size());
        for (Object item : list) {
            Object name;
            Object value;
            if (item instanceof Object[] pair && pair.length == 2) {
                name = pair[0];
                value = pair[1];
            } else if (item instanceof List<?> pair && pair.size() == 2) {
                name = pair.get(0);
                value = pair.get(1);
            } else {
                throw new Invalid("a WSGI header must be a (name, value) tuple, got " + describe(item));
            }
            if (!(name instanceof String n) || !(value instanceof String v)) {
                throw new Invalid("WSGI header names and values must be str, got " + describe(name) + ": " + describe(value));
            }
            if (n.isEmpty() || hasControl(n) || n.indexOf(':') >= 0 || n.indexOf(' ') >= 0 || hasControl(v) || !latin1(n + v)) {
                throw new Invalid("invalid WSGI header " + describe(n) + ": " + describe(v));
            }
            out.add(new String[]{n, v});
        }
        return out;
    }

    /** The Content-Length the app set, or -1. */
    static long contentLength(List<String[]> headers) {
        for (String[] header : headers) {
            if (header[0].equalsIgnoreCase("content-length")) {
                try {
                    return Long.parseLong(header[1].strip());
                } catch (NumberFormatException e) {
                    throw new Invalid("invalid Content-Length " + describe(header[1]));
                }
            }
        }
        return -1;
    }

    private static boolean hasControl(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\r' || c == '\n' || c == 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean latin1(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) > 0xff) {
                return false;
            }
        }
        return true;
    }

    private static String describe(Object value) {
        return value instanceof String text ? "'" + text + "'" : value == null ? "None" : value.getClass().getSimpleName() + " " + value;
    }
}
