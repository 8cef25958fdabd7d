package dev.apx.server;

import dev.apx.server.api.Response;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a client read from the server, checked and split into responses: each one a status line,
 * header lines of token names and visible values, and a body framed by content-length (none for
 * 1xx, 204, 304), or close-delimited when it is the last. A response saying {@code connection:
 * close} must be the last. Throws {@link AssertionError} naming what is wrong.
 */
public final class ResponseStream {
    public record Response(int status, List<String> headers, String body) {
        public boolean closes() {
            return headers.stream().anyMatch(h -> h.toLowerCase(Locale.ROOT).equals("connection: close"));
        }
    }

    private static final Pattern STATUS = Pattern.compile("HTTP/1\\.1 ([1-5][0-9][0-9]) [\\x20-\\x7e]*\r\n");
    private static final Pattern HEADER = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+: [\\x20-\\x7e\\x80-\\xff]*\r\n");

    private ResponseStream() {
    }

    /**
     * @param heads for each final response in order, whether its request was HEAD (no body,
     *              whatever content-length says); beyond the list, or when it is null, none was,
     *              except that with null the last response may be a server error without its body
     *              (the client cannot tell here whether it answered a HEAD)
     */
    public static List<Response> parse(String bytes, List<Boolean> heads) {
        List<Response> responses = new ArrayList<>();
        int finals = 0;
        int at = 0;
        while (at < bytes.length()) {
            Matcher status = STATUS.matcher(bytes).region(at, bytes.length());
            if (!status.lookingAt()) {
                throw new AssertionError("not a status line at " + at + ": " + excerpt(bytes, at));
            }
            int code = Integer.parseInt(status.group(1));
            at = status.end();
            List<String> headers = new ArrayList<>();
            long length = -1;
            while (!bytes.startsWith("\r\n", at)) {
                Matcher header = HEADER.matcher(bytes).region(at, bytes.length());
                if (!header.lookingAt()) {
                    throw new AssertionError("not a header line at " + at + ": " + excerpt(bytes, at));
                }
                String line = bytes.substring(at, header.end() - 2);
                headers.add(line);
                if (line.toLowerCase(Locale.ROOT).startsWith("content-length: ")) {
                    length = Long.parseLong(line.substring(16));
                }
                at = header.end();
            }
            at += 2;
            String body;
            boolean head = code >= 200 && heads != null && finals < heads.size() && heads.get(finals);
            boolean unknownHead = heads == null && code >= 400 && at == bytes.length();
            if (code >= 200) {
                finals++;
            }
            if (code < 200 || code == 204 || code == 304 || head || unknownHead) {
                body = "";
            } else if (length >= 0) {
                if (at + length > bytes.length()) {
                    throw new AssertionError("body shorter than content-length " + length + ": " + excerpt(bytes, at));
                }
                body = bytes.substring(at, (int) (at + length));
            } else {
                body = bytes.substring(at);
            }
            at += body.length();
            Response response = new Response(code, headers, body);
            if (!responses.isEmpty() && responses.getLast().closes()) {
                throw new AssertionError("a response after connection: close: " + excerpt(bytes, at));
            }
            responses.add(response);
        }
        return responses;
    }

    private static String excerpt(String bytes, int at) {
        return bytes.substring(at, Math.min(bytes.length(), at + 120)).replace("\r", "\\r").replace("\n", "\\n");
    }
}
