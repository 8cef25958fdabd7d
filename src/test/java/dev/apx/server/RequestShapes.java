package dev.apx.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Request bytes for the fuzz tests (property-based, without a library): mostly valid requests
 * with one to five mutations (a byte changed, an HTTP-ish piece inserted, a range deleted, doubled
 * or case-swapped), some strings of HTTP-ish pieces put together at random, a few random bytes.
 * Pieces lean towards what parsers get wrong: line endings, separators, framing headers, numbers
 * at the edges. Each case comes from its own seed, so a failure names the seed that repeats it.
 */
public final class RequestShapes {
    private RequestShapes() {
    }

    static final List<String> VALID = List.of(
            "GET / HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /a/b?c=d&e=%20f HTTP/1.1\r\nHost: t\r\nUser-Agent: fuzz\r\nAccept: */*\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello",
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n",
            "HEAD / HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET / HTTP/1.0\r\n\r\n",
            "OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET http://t/abs HTTP/1.1\r\nHost: t\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
            "GET /1 HTTP/1.1\r\nHost: t\r\n\r\nPOST /2 HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhiGET /3 HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: t\r\nCookie: a=b; c=d\r\nX-Obs: caf\u00e9\r\nConnection: keep-alive\r\n\r\n");

    static final List<String> PIECES = List.of(
            "\r\n", "\n", "\r", " ", "\t", ":", ": ", ";", ",", "\u0000", "\u0001", "\u007f", "\u00ff", "\r\n\r\n", "\r\n ",
            "GET", "POST", "HEAD", "get", "G\u0000T", "/", "/x", "*", "?", "#", "%", "%00", "http://", "HTTP/1.1", "HTTP/1.0",
            "HTTP/2.0", "http/1.1", "HTTP/1.1\r\n", "Host: t\r\n", "Content-Length: ", "Content-Length", "content-length: 0\r\n",
            "Transfer-Encoding: chunked\r\n", "Transfer-Encoding", "chunked", "identity", "gzip", "Expect: 100-continue\r\n",
            "Connection: close\r\n", "Upgrade: h2c\r\n", "0", "1", "5", "9", "-1", "+1", "00000000000000000005", "ffffffff",
            "7fffffff", "18446744073709551616", "0\r\n\r\n", "5\r\nhello\r\n", "a\r\n", "x", "X-A", "X-A: b\r\n");

    /** The request bytes of one case. */
    public static byte[] any(SplittableRandom random) {
        int kind = random.nextInt(9);
        if (kind < 6) {
            return mutated(random);
        }
        if (kind < 8) {
            return assembled(random);
        }
        byte[] bytes = new byte[random.nextInt(200)];
        random.nextBytes(bytes);
        return bytes;
    }

    static byte[] mutated(SplittableRandom random) {
        byte[] out = VALID.get(random.nextInt(VALID.size())).getBytes(StandardCharsets.ISO_8859_1);
        for (int i = random.nextInt(1, 6); i > 0; i--) {
            out = mutate(out, random);
        }
        return out;
    }

    static byte[] assembled(SplittableRandom random) {
        StringBuilder out = new StringBuilder();
        for (int i = random.nextInt(1, 41); i > 0; i--) {
            out.append(PIECES.get(random.nextInt(PIECES.size())));
        }
        return out.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] mutate(byte[] in, SplittableRandom random) {
        int at = random.nextInt(in.length + 1);
        int n = Math.min(in.length - at, random.nextInt(1, 17));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(in, 0, at);
        switch (random.nextInt(5)) {
            case 0 -> { // replace one byte
                out.write(random.nextInt(256));
                out.write(in, Math.min(in.length, at + 1), Math.max(0, in.length - at - 1));
            }
            case 1 -> { // insert a piece
                out.writeBytes(PIECES.get(random.nextInt(PIECES.size())).getBytes(StandardCharsets.ISO_8859_1));
                out.write(in, at, in.length - at);
            }
            case 2 -> out.write(in, at + n, in.length - at - n); // delete a range
            case 3 -> { // double a range
                out.write(in, at, n);
                out.write(in, at, in.length - at);
            }
            default -> { // swap the case of a range
                for (int i = at; i < at + n; i++) {
                    int b = in[i] & 0xff;
                    out.write(Character.isUpperCase(b) ? Character.toLowerCase(b) : Character.toUpperCase(b));
                }
                out.write(in, at + n, in.length - at - n);
            }
        }
        return out.toByteArray();
    }

    /** Cuts {@code input} into one to four pieces that are written separately (the decoder must not care). */
    public static List<byte[]> pieces(byte[] input, SplittableRandom random) {
        List<Integer> cuts = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            cuts.add(random.nextInt(input.length + 1));
        }
        cuts.sort(null);
        cuts.add(input.length);
        List<byte[]> pieces = new ArrayList<>();
        int from = 0;
        for (int to : cuts) {
            if (to > from) {
                pieces.add(java.util.Arrays.copyOfRange(input, from, to));
                from = to;
            }
        }
        return pieces;
    }

    /** The seed of a whole run: {@code -Dapx.fuzz.seed=N} repeats one, else a new one each run. */
    public static long runSeed() {
        String fixed = System.getProperty("apx.fuzz.seed");
        return fixed != null ? Long.parseLong(fixed) : System.nanoTime();
    }

    /** The random source of case {@code index} in a run. */
    public static SplittableRandom caseRandom(long runSeed, int index) {
        return new SplittableRandom(runSeed * 0x9E3779B97F4A7C15L + index);
    }

    /** The input, printable: for failure messages. */
    public static String show(byte[] input) {
        StringBuilder out = new StringBuilder();
        for (byte b : input) {
            int c = b & 0xff;
            out.append(c >= 0x20 && c < 0x7f && c != '\\' ? String.valueOf((char) c) : String.format("\\x%02x", c));
        }
        return out.toString();
    }
}
