package dev.apx.server.http2;

import dev.apx.server.shared.Limits;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.Http2Headers;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A stream's request HEADERS as apx reads them: the ASGI header list, the per-request limits, the declared length. */
final class RequestHeaders {
    private RequestHeaders() {
    }

    /** The ASGI headers: {@code host} from {@code :authority} first (replacing any host field), then the rest in order. */
    static List<String[]> asgi(Http2Headers frame) {
        List<String[]> headers = new ArrayList<>(frame.size());
        CharSequence authority = frame.authority();
        if (authority != null) {
            headers.add(new String[]{"host", authority.toString()});
        }
        for (Map.Entry<CharSequence, CharSequence> header : frame) {
            CharSequence name = header.getKey();
            if ((!name.isEmpty() && name.charAt(0) == ':') || (authority != null && "host".contentEquals(name))) {
                continue;
            }
            // HPACK carries octets; Netty's AsciiString keeps them one char per byte, as ISO-8859-1 (the RequestHead's form)
            headers.add(new String[]{name.toString(), header.getValue().toString()});
        }
        return headers;
    }

    /** What breaks {@code --limit-request-fields} or {@code --limit-request-field-size}, or null. */
    static String problem(Http2Headers frame, Limits limits) {
        if (frame.size() > limits.requestFields()) {
            return "more than " + limits.requestFields() + " header fields";
        }
        for (Map.Entry<CharSequence, CharSequence> header : frame) {
            if (header.getKey().length() + 2 + header.getValue().length() > limits.requestFieldSize()) {
                return "header field " + header.getKey() + " is longer than " + limits.requestFieldSize() + " bytes";
            }
        }
        return null;
    }

    /** The content-length the client declared: -1 without one, Long.MAX_VALUE when it is not a number. */
    static long contentLength(Http2Headers frame) {
        CharSequence value = frame.get(HttpHeaderNames.CONTENT_LENGTH);
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value.toString().trim());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }
}
