package dev.apx.server.http1;

import io.netty.handler.codec.http.HttpResponseStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The Transfer-Encoding of a request: {@code chunked} is the one coding apx decodes. RFC 9112 6.1:
 * chunked must be the final coding, and only once (400 otherwise: the body's framing is unknown);
 * a coding the server does not implement gets 501 (as nginx answers), {@code identity} included
 * (no longer a transfer coding since RFC 7230).
 */
final class TransferCodings {
    private TransferCodings() {
    }

    /** Why the Transfer-Encoding {@code fields} are refused, or null (none, or exactly chunked). */
    static RequestRejected problem(List<String> fields) {
        if (fields.isEmpty()) {
            return null;
        }
        List<String> codings = new ArrayList<>();
        for (String field : fields) {
            for (String element : field.split(",", -1)) {
                String coding = element.strip().toLowerCase(Locale.ROOT);
                if (!coding.isEmpty()) {
                    codings.add(coding);
                }
            }
        }
        if (codings.isEmpty() || !codings.getLast().equals("chunked") || codings.indexOf("chunked") != codings.size() - 1) {
            return new RequestRejected(HttpResponseStatus.BAD_REQUEST, "Transfer-Encoding whose final coding is not chunked once: "
                    + String.join(", ", fields));
        }
        if (codings.size() > 1) {
            return new RequestRejected(HttpResponseStatus.NOT_IMPLEMENTED, "Transfer-Encoding " + String.join(", ", fields)
                    + ": apx decodes chunked only");
        }
        return null;
    }
}
