package dev.apx.server.warmup;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The warm-up client's HTTP/1.1 response reader: finds where each response of apx's built-in app
 * ends ({@code Content-Length}, or chunked without trailers) and skips its bytes. Not Netty's
 * {@code HttpClientCodec}, whose decoder and encoder are the classes the server's own
 * {@link RequestDecoder} and {@link ResponseEncoder} extend: decoding responses through them would
 * compile the server's hot codec methods with profiles of a client's work mixed in. One per connection.
 */
final class WarmupResponses {
    private static final int HEAD = 0;
    private static final int BODY = 1;
    private static final int CHUNK_SIZE = 2;
    private static final int CHUNK_DATA = 3;

    private int state = HEAD;
    private long left; // body or chunk bytes still to skip (chunk data includes its CRLF)

    /** Consumes what {@code in} holds; returns how many responses it completed. Throws on what apx would never send. */
    int feed(ByteBuf in) {
        int done = 0;
        while (true) {
            switch (state) {
                case HEAD -> {
                    int end = indexOf(in, "\r\n\r\n");
                    if (end < 0) {
                        return done;
                    }
                    String head = in.readCharSequence(end - in.readerIndex() + 4, StandardCharsets.US_ASCII).toString()
                            .toLowerCase(Locale.ROOT);
                    if (!head.startsWith("http/1.1 ")) {
                        throw new IllegalStateException("not an HTTP/1.1 response: " + head.lines().findFirst().orElse(""));
                    }
                    if (head.contains("\r\ntransfer-encoding: chunked\r\n")) {
                        state = CHUNK_SIZE;
                    } else {
                        left = contentLength(head);
                        state = BODY;
                    }
                }
                case BODY -> {
                    int skip = (int) Math.min(left, in.readableBytes());
                    in.skipBytes(skip);
                    left -= skip;
                    if (left > 0) {
                        return done;
                    }
                    state = HEAD;
                    done++;
                }
                case CHUNK_SIZE -> {
                    int end = indexOf(in, "\r\n");
                    if (end < 0) {
                        return done;
                    }
                    String line = in.readCharSequence(end - in.readerIndex(), StandardCharsets.US_ASCII).toString();
                    in.skipBytes(2);
                    long size = Long.parseLong(line.split(";", 2)[0].trim(), 16);
                    left = size + 2;
                    state = size == 0 ? BODY : CHUNK_DATA; // the last chunk: its CRLF ends the response (no trailers)
                }
                case CHUNK_DATA -> {
                    int skip = (int) Math.min(left, in.readableBytes());
                    in.skipBytes(skip);
                    left -= skip;
                    if (left > 0) {
                        return done;
                    }
                    state = CHUNK_SIZE;
                }
                default -> throw new IllegalStateException("state " + state);
            }
        }
    }

    /** True between responses: nothing of one has arrived yet. */
    boolean idle() {
        return state == HEAD;
    }

    private static long contentLength(String head) {
        int at = head.indexOf("\r\ncontent-length:");
        if (at < 0) {
            return 0; // apx's built-in app always sends a length or chunks; a 404's empty body too
        }
        int end = head.indexOf("\r\n", at + 2);
        return Long.parseLong(head.substring(at + "\r\ncontent-length:".length(), end).trim());
    }

    private static int indexOf(ByteBuf in, String needle) {
        int last = in.writerIndex() - needle.length();
        outer:
        for (int i = in.readerIndex(); i <= last; i++) {
            for (int j = 0; j < needle.length(); j++) {
                if (in.getByte(i + j) != needle.charAt(j)) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
