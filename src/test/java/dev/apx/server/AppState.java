package dev.apx.server;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What {@code apxtest.hostile_apps} observed, asked over HTTP: /seen (paths, malformed scopes) and /stats (handler outcomes, objects). */
public final class AppState {
    private AppState() {
    }

    public static String seen(int port) {
        return body(RawHttp.exchange(port, "GET /seen HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
    }

    public static String stats(int port) {
        return body(RawHttp.exchange(port, "GET /stats HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
    }

    public static long count(String stats, String key) {
        Matcher m = Pattern.compile("\"" + key + "\": (\\d+)").matcher(stats);
        if (!m.find()) {
            throw new AssertionError("no " + key + " in " + stats);
        }
        return Long.parseLong(m.group(1));
    }

    /** Handlers still running: started minus every way to end. */
    static long running(String stats) {
        return count(stats, "started") - count(stats, "completed") - count(stats, "disconnect")
                - count(stats, "cancelled") - count(stats, "failed");
    }

    /** Waits (up to 10 s) until no handler runs; returns the last stats. */
    public static String awaitIdle(int port) throws InterruptedException {
        String stats = stats(port);
        for (int i = 0; i < 1000 && running(stats) != 0; i++) {
            Thread.sleep(10);
            stats = stats(port);
        }
        return stats;
    }

    private static String body(String response) {
        int at = response.indexOf("\r\n\r\n");
        if (!response.startsWith("HTTP/1.1 200 ") || at < 0) {
            throw new AssertionError("app state unavailable: " + response);
        }
        return response.substring(at + 4);
    }
}
