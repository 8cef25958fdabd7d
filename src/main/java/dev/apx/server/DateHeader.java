package dev.apx.server;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** The {@code date} header value (IMF-fixdate), formatted at most once a second. Any thread. */
public final class DateHeader {
    private static final DateTimeFormatter FORMAT =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
    private static volatile long second = -1;
    private static volatile String value = "";

    private DateHeader() {
    }

    public static String now() {
        long current = System.currentTimeMillis() / 1000;
        if (current != second) {
            value = FORMAT.format(ZonedDateTime.now(ZoneOffset.UTC));
            second = current;
        }
        return value;
    }
}
