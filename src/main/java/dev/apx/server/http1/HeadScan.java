package dev.apx.server.http1;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponseStatus;

import java.nio.charset.StandardCharsets;

/**
 * What {@link RequestDecoder} looks for in the unread bytes of a request head before Netty's
 * decoder parses them: shapes Netty accepts (obs-fold) or, finding no line end, waits on until the
 * header timeout although the bytes already decide the answer (a bare CR; the version of a request
 * line still without its CRLF). No allocation: {@link ByteBuf#indexOf} and a few byte reads per line.
 */
final class HeadScan {
    private static final RequestRejected OBS_FOLD = new RequestRejected(HttpResponseStatus.BAD_REQUEST,
            "obsolete line folding (a header line starting with a space or tab)");
    private static final RequestRejected BARE_CR = new RequestRejected(HttpResponseStatus.BAD_REQUEST,
            "a CR not followed by LF in the request head");
    private static final int VERSION_LENGTH = "HTTP/1.1".length();

    private HeadScan() {
    }

    /**
     * The problem in the unread head, or null. At a message's start Netty first skips control
     * characters and whitespace; inside a head the buffer starts at a line. The scan stops at the
     * blank line that ends the head, so body bytes are never looked at.
     */
    static RequestRejected problem(ByteBuf in, boolean atStart, int maxHeadLength) {
        int i = in.readerIndex();
        int end = Math.min(in.writerIndex(), i + maxHeadLength);
        boolean requestLine = atStart;
        if (atStart) {
            while (i < end && isControlOrSpace(in.getByte(i))) {
                i++;
            }
        } else if (i < end && isFoldStart(in.getByte(i))) {
            return OBS_FOLD;
        }
        while (i < end) {
            byte b = in.getByte(i);
            if (b == '\r' || b == '\n') { // the blank line: end of the head (Netty refuses a bare LF there)
                return b == '\r' && i + 1 < end && in.getByte(i + 1) != '\n' ? BARE_CR : null;
            }
            int lf = in.indexOf(i, end, (byte) '\n');
            if (lf < 0) { // the last line, incomplete: what it already shows
                return unfinishedLine(in, i, end, requestLine);
            }
            if (lf + 1 >= end) {
                return null;
            }
            if (isFoldStart(in.getByte(lf + 1))) {
                return OBS_FOLD;
            }
            i = lf + 1;
            requestLine = false;
        }
        return null;
    }

    /**
     * A line with no LF yet. A CR inside it with a byte after it is a bare CR (Netty refuses one
     * in a complete line; llhttp as soon as it sees it). In a request line the version is decided
     * once its eight bytes are in, as {@link RequestDecoder#createMessage} decides it for a whole line.
     */
    private static RequestRejected unfinishedLine(ByteBuf in, int from, int end, boolean requestLine) {
        int cr = in.indexOf(from, end, (byte) '\r');
        if (cr >= 0 && cr + 1 < end) {
            return BARE_CR;
        }
        if (!requestLine) {
            return null;
        }
        int firstSpace = in.indexOf(from, end, (byte) ' ');
        int secondSpace = firstSpace < 0 ? -1 : in.indexOf(firstSpace + 1, end, (byte) ' ');
        return secondSpace < 0 ? null : versionProblem(in, secondSpace + 1, end);
    }

    /**
     * The version's bytes so far, {@code from} to {@code end}: 400 once they cannot begin
     * {@code HTTP/DIGIT.DIGIT}, 505 once all eight are in and they are not HTTP/1.0 or HTTP/1.1
     * (RFC 9110 15.6.6: a major version the server does not speak), else null (wait for more).
     */
    private static RequestRejected versionProblem(ByteBuf in, int from, int end) {
        int length = Math.min(end - from, VERSION_LENGTH);
        for (int j = 0; j < length; j++) {
            byte b = in.getByte(from + j);
            boolean fits = j < 5 ? b == "HTTP/".charAt(j) : j == 6 ? b == '.' : b >= '0' && b <= '9';
            if (!fits) {
                return new RequestRejected(HttpResponseStatus.BAD_REQUEST, "invalid HTTP version");
            }
        }
        if (length < VERSION_LENGTH) {
            return null;
        }
        byte major = in.getByte(from + 5);
        byte minor = in.getByte(from + 7);
        if (major == '1' && (minor == '0' || minor == '1')) {
            return null;
        }
        return new RequestRejected(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED,
                "HTTP version " + in.toString(from, VERSION_LENGTH, StandardCharsets.ISO_8859_1) + " is not supported");
    }

    private static boolean isFoldStart(byte b) {
        return b == ' ' || b == '\t';
    }

    static boolean isControlOrSpace(byte b) {
        return Character.isISOControl(b & 0xff) || Character.isWhitespace(b & 0xff);
    }
}
