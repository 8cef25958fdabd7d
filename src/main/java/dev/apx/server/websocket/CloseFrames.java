package dev.apx.server.websocket;

import io.netty.buffer.ByteBuf;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The body of a client's close frame, as RFC 6455 5.5.1 and 7.4 allow it: empty, or a status code
 * a peer may send (1000-1003, 1007-1014, 3000-4999: the codes websockets accepts) and a reason
 * in valid UTF-8. Anything else fails the connection: 1002, or 1007 for the reason's bytes.
 */
final class CloseFrames {
    record Fault(int code, String reason) {
    }

    private CloseFrames() {
    }

    /** Why {@code body} (the close frame's payload, unread) is refused, or null. */
    static Fault fault(ByteBuf body) {
        int length = body.readableBytes();
        if (length == 0) {
            return null;
        }
        if (length == 1) {
            return new Fault(1002, "close frame with a 1-byte body");
        }
        int code = body.getUnsignedShort(body.readerIndex());
        if (!sendable(code)) {
            return new Fault(1002, "invalid close code " + code);
        }
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(body.nioBuffer(body.readerIndex() + 2, length - 2));
        } catch (CharacterCodingException e) {
            return new Fault(1007, "invalid UTF-8 in the close reason");
        }
        return null;
    }

    /** 1004 is reserved, 1005, 1006 and 1015 must never be sent; 1016-2999 are unassigned; 5000 and up do not exist. */
    static boolean sendable(int code) {
        return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
    }
}
