package dev.apx;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * The whole response of one {@link PythonApp#call}: status, headers in the order the app sent
 * them (names as it spelled them), body and trailers (empty unless the app sent some).
 */
public final class AppResponse {
    private final int status;
    private final List<Header> headers;
    private final byte[] body;
    private final List<Header> trailers;

    AppResponse(int status, List<Header> headers, byte[] body, List<Header> trailers) {
        this.status = status;
        this.headers = List.copyOf(headers);
        this.body = body;
        this.trailers = List.copyOf(trailers);
    }

    /**
     * The status the app sent.
     *
     * @return the HTTP status code
     */
    public int status() {
        return status;
    }

    /**
     * The headers in the order the app sent them, names as it spelled them, duplicates kept.
     *
     * @return the headers (unmodifiable)
     */
    public List<Header> headers() {
        return headers;
    }

    /**
     * The first value of one header.
     *
     * @param name the header's name (any case)
     * @return its first value, or null when the app sent none
     */
    public String header(String name) {
        return Header.first(headers, name);
    }

    /**
     * The body.
     *
     * @return a copy of the body (empty when there is none)
     */
    public byte[] body() {
        return body.clone();
    }

    /**
     * The body as text, in the Content-Type's charset (UTF-8 when it names none or one the JVM does not know).
     *
     * @return the decoded body
     */
    public String bodyText() {
        return new String(body, charset());
    }

    /**
     * The trailers ({@code http.response.trailers}), in order.
     *
     * @return the trailers; empty unless the app sent some (unmodifiable)
     */
    public List<Header> trailers() {
        return trailers;
    }

    private Charset charset() {
        String type = header("content-type");
        if (type != null) {
            for (String parameter : type.split(";")) {
                String p = parameter.strip();
                if (p.toLowerCase(Locale.ROOT).startsWith("charset=")) {
                    try {
                        return Charset.forName(p.substring(8).replace("\"", "").strip());
                    } catch (IllegalArgumentException unknown) {
                        break;
                    }
                }
            }
        }
        return StandardCharsets.UTF_8;
    }

    @Override
    public String toString() {
        return "AppResponse[" + status + ", " + body.length + " bytes]";
    }
}
