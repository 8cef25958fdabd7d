package dev.apx.server.http1;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Follows a chunked body's framing a step ahead of Netty's decoder, to refuse what Netty's chunk
 * line check lets through: a chunk extension without a name ({@code 5;}, {@code 5;=x},
 * {@code 5;a;}; RFC 9112 7.1.1: {@code chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )},
 * a name being a token of one character or more). The rest of the line (sizes, tokens, quoted
 * values, CRLF) Netty checks itself; this only needs enough of it to know where the next line
 * starts: the size, and quoted strings (a {@code ;} inside one separates nothing).
 *
 * <p>Chunk data is skipped, not read. Only the bytes Netty has not yet consumed are scanned, each
 * once ({@link #ahead} counts those already seen). Stops at the last chunk: the trailers are
 * header lines, Netty's. Event loop only, one per connection.
 */
final class ChunkLines {
    private static final RequestRejected NO_NAME = new RequestRejected(HttpResponseStatus.BAD_REQUEST,
            "a chunk extension without a name");
    private static final boolean[] TCHAR = new boolean[128];

    static {
        for (char c : "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray()) {
            TCHAR[c] = true;
        }
    }

    private enum State { SIZE, AFTER_SIZE, NAME, EXTENSION, QUOTED, ESCAPED, DATA, DATA_CRLF, DONE }

    private State state = State.DONE;
    private long size; // the size being read, then the data still to skip
    private int crlfLeft;
    private int ahead; // bytes after the reader index already scanned

    /** The body starts at the reader index. */
    void start() {
        state = State.SIZE;
        size = 0;
        ahead = 0;
    }

    /** Netty consumed {@code bytes} of what was scanned. */
    void consumed(int bytes) {
        ahead = Math.max(0, ahead - bytes);
    }

    /** Scans the bytes not yet seen; the refusal if a chunk line is wrong, else null. */
    RequestRejected scan(ByteBuf in) {
        int i = in.readerIndex() + ahead;
        int end = in.writerIndex();
        while (i < end && state != State.DONE) {
            if (state == State.DATA) {
                int skip = (int) Math.min(size, end - i);
                i += skip;
                size -= skip;
                if (size == 0) {
                    state = State.DATA_CRLF;
                    crlfLeft = 2;
                }
                continue;
            }
            byte b = in.getByte(i++);
            if (state == State.DATA_CRLF) {
                if (--crlfLeft == 0) {
                    state = State.SIZE;
                }
                continue;
            }
            if (b == '\n') { // the line's end (Netty refuses it without its CR)
                state = size == 0 ? State.DONE : State.DATA;
                continue;
            }
            switch (state) {
                case SIZE, AFTER_SIZE -> {
                    int digit = Character.digit(b, 16);
                    if (digit >= 0 && state == State.SIZE && size < 1L << 56) {
                        size = size << 4 | digit;
                    } else if (b == ';') {
                        state = State.NAME;
                    } else if (b == ' ' || b == '\t' || b == '\r') {
                        state = State.AFTER_SIZE;
                    } else {
                        state = State.DONE; // not a size Netty takes: it refuses the line, nothing to follow
                    }
                }
                case NAME -> {
                    if (b >= 0 && TCHAR[b]) {
                        state = State.EXTENSION;
                    } else if (b != ' ' && b != '\t') {
                        ahead = i - in.readerIndex();
                        return NO_NAME;
                    }
                }
                case EXTENSION -> {
                    if (b == ';') {
                        state = State.NAME;
                    } else if (b == '"') {
                        state = State.QUOTED;
                    }
                }
                case QUOTED -> {
                    if (b == '\\') {
                        state = State.ESCAPED;
                    } else if (b == '"') {
                        state = State.EXTENSION;
                    }
                }
                case ESCAPED -> state = State.QUOTED;
                default -> throw new IllegalStateException(state.name());
            }
        }
        ahead = i - in.readerIndex();
        return null;
    }
}
