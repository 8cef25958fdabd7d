package dev.apx.server.shared;

import io.netty.util.AsciiString;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The {@code date} header's value, made once a second. An {@link AsciiString}: the HTTP/1.1 encoder
 * copies its bytes in one go and HPACK reads it as it is (a String is written char by char).
 */
public final class DateHeader {
    private static final DateTimeFormatter FORMAT =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    /** The second and its text, replaced together. */
    private record Stamp(long second, AsciiString value) {
    }

    private static volatile Stamp stamp = new Stamp(-1, AsciiString.EMPTY_STRING);

    private DateHeader() {
    }

    public static AsciiString now() {
        long current = System.currentTimeMillis() / 1000;
        Stamp last = stamp;
        if (last.second() != current) {
            last = new Stamp(current, new AsciiString(FORMAT.format(Instant.ofEpochSecond(current))));
            stamp = last;
        }
        return last.value();
    }
}
