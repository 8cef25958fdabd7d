package dev.apx;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A request for {@link PythonApp#call}: immutable; {@link #header} and {@link #withBody} return a
 * new request. {@code pathAndQuery} is the request target as on the wire: a path starting with
 * {@code /}, percent-encoded where needed, and an optional {@code ?query}.
 */
public final class AppRequest {
    private static final byte[] NO_BODY = new byte[0];
    private final String method;
    private final String pathAndQuery;
    private final List<Header> headers;
    private final byte[] body;

    private AppRequest(String method, String pathAndQuery, List<Header> headers, byte[] body) {
        this.method = method;
        this.pathAndQuery = pathAndQuery;
        this.headers = List.copyOf(headers);
        this.body = body;
    }

    /**
     * A request with {@code method} and no headers or body.
     *
     * @param method       the HTTP method (e.g. {@code PUT}; upper-cased)
     * @param pathAndQuery the request target: a path starting with {@code /}, percent-encoded, and an optional {@code ?query}
     * @return the request
     * @throws IllegalArgumentException {@code method} is not a token, or the target does not start with {@code /} or holds
     *         spaces or controls
     */
    public static AppRequest of(String method, String pathAndQuery) {
        Objects.requireNonNull(method, "method");
        if (method.isEmpty() || !method.chars().allMatch(c -> c > ' ' && c < 127 && c != ':' && c != '/')) {
            throw new IllegalArgumentException("not an HTTP method: '" + method + "'");
        }
        Objects.requireNonNull(pathAndQuery, "pathAndQuery");
        if (!pathAndQuery.startsWith("/") || pathAndQuery.chars().anyMatch(c -> c <= ' ' || c >= 127)) {
            throw new IllegalArgumentException("the path must start with / and hold no spaces or controls"
                    + " (percent-encode them), got '" + pathAndQuery + "'");
        }
        return new AppRequest(method.toUpperCase(Locale.ROOT), pathAndQuery, List.of(), NO_BODY);
    }

    /**
     * A GET request.
     *
     * @param pathAndQuery the request target, as for {@link #of}
     * @return the request
     * @throws IllegalArgumentException the target is not valid, as for {@link #of}
     */
    public static AppRequest get(String pathAndQuery) {
        return of("GET", pathAndQuery);
    }

    /**
     * A POST of {@code body} with its Content-Type.
     *
     * @param pathAndQuery the request target, as for {@link #of}
     * @param body         the body (copied)
     * @param contentType  the Content-Type header's value, or null for none
     * @return the request
     * @throws IllegalArgumentException the target is not valid, as for {@link #of}
     */
    public static AppRequest post(String pathAndQuery, byte[] body, String contentType) {
        AppRequest request = of("POST", pathAndQuery).withBody(body);
        return contentType == null ? request : request.header("content-type", contentType);
    }

    /**
     * This request with one more header (names may repeat; they reach the app in the order added).
     *
     * @param name  the header's name (a token)
     * @param value the header's value: ISO-8859-1, no CR, LF or NUL
     * @return a new request with the header added
     * @throws IllegalArgumentException the name or the value is not valid
     */
    public AppRequest header(String name, String value) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        if (name.isEmpty() || name.chars().anyMatch(c -> c <= ' ' || c >= 127 || c == ':')) {
            throw new IllegalArgumentException("not a header name: '" + name + "'");
        }
        if (value.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0 || c > 255)) {
            throw new IllegalArgumentException("header " + name + ": the value holds CR, LF, NUL or a char above U+00FF");
        }
        List<Header> more = new ArrayList<>(headers);
        more.add(new Header(name, value));
        return new AppRequest(method, pathAndQuery, more, body);
    }

    /**
     * This request with {@code body} as its body.
     *
     * @param body the body (copied)
     * @return a new request with that body
     */
    public AppRequest withBody(byte[] body) {
        return new AppRequest(method, pathAndQuery, headers, body.clone());
    }

    /**
     * This request with {@code text} in UTF-8 as its body.
     *
     * @param text the body's text
     * @return a new request with that body
     */
    public AppRequest withBody(String text) {
        return new AppRequest(method, pathAndQuery, headers, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The method.
     *
     * @return the HTTP method, upper case
     */
    public String method() {
        return method;
    }

    /**
     * The request target.
     *
     * @return the path and the optional {@code ?query}, as given
     */
    public String pathAndQuery() {
        return pathAndQuery;
    }

    /**
     * The headers.
     *
     * @return the headers in the order added, duplicates kept (unmodifiable)
     */
    public List<Header> headers() {
        return headers;
    }

    /**
     * The body.
     *
     * @return a copy of the body (empty when there is none)
     */
    public byte[] body() {
        return body.clone();
    }

    byte[] bodyNoCopy() {
        return body;
    }

    @Override
    public String toString() {
        return method + " " + pathAndQuery;
    }
}
