package dev.apx.app;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;

/**
 * The path of a request target as bytes: the head is read as ISO-8859-1 (one char per byte, so raw
 * UTF-8 and obs-text arrive as such chars), and each valid {@code %XX} becomes its byte; '+' stays.
 * This is urllib's {@code unquote_to_bytes}. ASGI decodes the bytes as UTF-8, WSGI as latin-1.
 */
public final class PercentDecoding {
    private PercentDecoding() {
    }

    /** The target's bytes with {@code %XX} decoded, read in {@code charset}; the target itself when it has nothing to decode. */
    public static String decode(String target, Charset charset) {
        return plain(target) ? target : new String(toBytes(target), charset);
    }

    /** True when {@code target} is all ASCII without '%': its bytes are its chars, nothing to decode. */
    private static boolean plain(String target) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c == '%' || c > 0x7f) {
                return false;
            }
        }
        return true;
    }

    private static byte[] toBytes(String target) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(target.length());
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c == '%' && i + 2 < target.length()
                    && Character.digit(target.charAt(i + 1), 16) >= 0 && Character.digit(target.charAt(i + 2), 16) >= 0) {
                bytes.write(Integer.parseInt(target, i + 1, i + 3, 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toByteArray();
    }
}
