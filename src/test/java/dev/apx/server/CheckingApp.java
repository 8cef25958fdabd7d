package dev.apx.server;

import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.Response;
import dev.apx.server.http1.DecoderFuzzTest;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Pattern;

/**
 * The app behind {@link DecoderFuzzTest}, in Java so that 100,000 cases stay cheap: it records
 * what is wrong with each request head it gets (it must be nothing), reads the body and answers
 * {@code 200 "<n> bytes"}, or 204 to HEAD (no body to frame). The thing under test is the
 * pipeline in front of it.
 */
public final class CheckingApp implements HttpApp {
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
    private static final Pattern TARGET = Pattern.compile("(/|https?://)[\\x21-\\x7e]*|\\*"); // visible ASCII: raw bytes above it are refused
    private static final Pattern VALUE = Pattern.compile("([\\x21-\\x7e\\x80-\\xff]([\\x20\\x09\\x21-\\x7e\\x80-\\xff]*[\\x21-\\x7e\\x80-\\xff])?)?");

    public final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    /** Whether each request it got, in order, was HEAD (cleared by the test between connections). */
    public final List<Boolean> heads = new java.util.ArrayList<>();

    @Override
    public Exchange open(RequestHead head, Response response) {
        check(head);
        heads.add(head.method().equals("HEAD"));
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean isHead = head.method().equals("HEAD");
        return new Exchange() {
            @Override
            public void body(byte[] chunk, boolean last) {
                body.writeBytes(chunk);
                if (last) {
                    if (isHead) {
                        response.start(204, List.of(), false);
                        response.body(new byte[0], false);
                    } else {
                        byte[] answer = (body.size() + " bytes").getBytes(StandardCharsets.US_ASCII);
                        response.start(200, List.<String[]>of(new String[]{"content-length", String.valueOf(answer.length)}), false);
                        response.body(answer, false);
                    }
                }
            }

            @Override
            public void disconnected() {
            }

            @Override
            public void writable() {
            }
        };
    }

    private void check(RequestHead head) {
        if (!TOKEN.matcher(head.method()).matches()) {
            problems.add("method " + head.method());
        }
        if (!TARGET.matcher(head.uri()).matches()) {
            problems.add("target " + head.uri());
        }
        if (!head.httpVersion().equals("HTTP/1.1") && !head.httpVersion().equals("HTTP/1.0")) {
            problems.add("version " + head.httpVersion());
        }
        for (String[] header : head.headers()) {
            if (!TOKEN.matcher(header[0]).matches() || !VALUE.matcher(header[1]).matches()) {
                problems.add("header " + header[0] + ": " + header[1]);
            }
        }
    }
}
