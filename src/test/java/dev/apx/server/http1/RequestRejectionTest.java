package dev.apx.server.http1;

import dev.apx.server.AppState;
import dev.apx.server.OnceOnly;
import dev.apx.server.RawHttp;
import dev.apx.server.TestServer;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every malformed or hostile request shape of docs/security.md, sent over a real socket to apx
 * serving {@code apxtest.hostile_apps} (with {@code --limit-max-body 1000}): the status, the closed
 * connection, whether the request reached the app (a head problem never does; a body problem is
 * found after the app got the head, which then sees a disconnect), and a good request afterwards.
 */
class RequestRejectionTest {
    private static final String H = "Host: t\r\n";
    private static TestServer server;

    /** One row of the table: {@code %p} in the request is replaced by a path unique to the case. */
    record Case(String name, String request, int status, boolean headReachesApp) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() {
        List<Case> c = new ArrayList<>();
        // sizes and counts
        c.add(head("request line too long", "GET %p?" + "a".repeat(9000) + " HTTP/1.1\r\n" + H + "\r\n", 414));
        c.add(head("header lines too large together", "GET %p HTTP/1.1\r\n" + H + ("X-Big: " + "b".repeat(1000) + "\r\n").repeat(20) + "\r\n", 431));
        c.add(head("too many header fields", "GET %p HTTP/1.1\r\n" + H + "X-N: 1\r\n".repeat(100) + "\r\n", 431));
        c.add(head("header field too long", "GET %p HTTP/1.1\r\n" + H + "X-Long: " + "c".repeat(8200) + "\r\n\r\n", 431));
        c.add(head("Content-Length above --limit-max-body", "POST %p HTTP/1.1\r\n" + H + "Content-Length: 1001\r\n\r\n" + "d".repeat(1001), 413));
        c.add(body("chunked body above --limit-max-body", "POST %p HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n"
                + ("200\r\n" + "e".repeat(512) + "\r\n").repeat(3) + "0\r\n\r\n", 413));
        // request line
        c.add(head("invalid character in method", "G(T %p HTTP/1.1\r\n" + H + "\r\n", 400));
        c.add(head("control character in target", "GET %p\u0001x HTTP/1.1\r\n" + H + "\r\n", 400));
        c.add(head("DEL in target", "GET %p\u007fx HTTP/1.1\r\n" + H + "\r\n", 400));
        c.add(head("raw non-ASCII bytes in target", "GET %p/caf\u00c3\u00a9 HTTP/1.1\r\n" + H + "\r\n", 400));
        c.add(head("raw non-ASCII byte in query", "GET %p?q=\u00e9 HTTP/1.1\r\n" + H + "\r\n", 400));
        c.add(head("space in target", "GET %p x HTTP/1.1\r\n" + H + "\r\n", 400));
        c.add(head("target not in origin, absolute or asterisk form", "GET probe%p HTTP/1.1\r\n" + H + "\r\n", 400));
        c.add(head("fragment in target", "GET %p#frag HTTP/1.1\r\n" + H + "\r\n", 400));
        c.add(head("asterisk target with GET", "GET * HTTP/1.1\r\nX-Case: %p\r\n" + H + "\r\n", 400));
        c.add(head("unsupported version HTTP/1.2", "GET %p HTTP/1.2\r\n" + H + "\r\n", 505));
        c.add(head("unsupported version HTTP/2.0", "GET %p HTTP/2.0\r\n" + H + "\r\n", 505));
        c.add(head("unknown major version HTTP/5.6", "GET %p HTTP/5.6\r\n" + H + "\r\n", 505));
        c.add(head("unknown major version, the line not yet ended", "GET %p HTTP/5.6", 505));
        c.add(head("invalid version, the line not yet ended", "GET %p FOO/1.1", 400));
        c.add(head("invalid version", "GET %p FOO/1.1\r\n" + H + "\r\n", 400));
        c.add(head("lowercase version", "GET %p http/1.1\r\n" + H + "\r\n", 400));
        c.add(head("no version (HTTP/0.9)", "GET %p\r\n\r\n", 400));
        c.add(head("two spaces between parts", "GET  %p  HTTP/1.1\r\n" + H + "\r\n", 400));
        c.add(head("tab between parts", "GET\t%p\tHTTP/1.1\r\n" + H + "\r\n", 400));
        c.add(head("bare CR in request line", "GET %p HTTP/1.1\rX: y\r\n" + H + "\r\n", 400));
        // header names and values
        c.add(head("space before colon", "GET %p HTTP/1.1\r\n" + H + "X-A : 1\r\n\r\n", 400));
        c.add(head("invalid character in header name", "GET %p HTTP/1.1\r\n" + H + "X(A): 1\r\n\r\n", 400));
        c.add(head("non-ASCII header name", "GET %p HTTP/1.1\r\n" + H + "X-\u00e9: 1\r\n\r\n", 400));
        c.add(head("header line without colon", "GET %p HTTP/1.1\r\n" + H + "X-A\r\n\r\n", 400));
        c.add(head("empty header name", "GET %p HTTP/1.1\r\n" + H + ": 1\r\n\r\n", 400));
        c.add(head("NUL in header value", "GET %p HTTP/1.1\r\n" + H + "X-A: a\u0000b\r\n\r\n", 400));
        c.add(head("control character in header value", "GET %p HTTP/1.1\r\n" + H + "X-A: a\u0001b\r\n\r\n", 400));
        c.add(head("DEL in header value", "GET %p HTTP/1.1\r\n" + H + "X-A: a\u007fb\r\n\r\n", 400));
        c.add(head("bare CR in header value", "GET %p HTTP/1.1\r\n" + H + "X-A: a\rb\r\n\r\n", 400));
        c.add(head("bare CR in header value, the line not yet ended", "GET %p HTTP/1.1\r\n" + H + "X-A: a\rb", 400));
        c.add(head("bare CR ending the head", "POST %p HTTP/1.1\r\n" + H + "Content-Length: 3\r\n\rabc", 400));
        c.add(head("bare LF line ending", "GET %p HTTP/1.1\n" + H + "\n", 400));
        c.add(head("obs-fold (space)", "GET %p HTTP/1.1\r\n" + H + "X-A: a\r\n b\r\n\r\n", 400));
        c.add(head("obs-fold (tab)", "GET %p HTTP/1.1\r\n" + H + "X-A: a\r\n\tb\r\n\r\n", 400));
        c.add(head("two Host fields", "GET %p HTTP/1.1\r\n" + H + "Host: u\r\n\r\n", 400));
        c.add(head("an expectation other than 100-continue", "POST %p HTTP/1.1\r\n" + H + "Expect: 200-ok\r\nContent-Length: 2\r\n\r\nok", 417));
        c.add(head("first header line starts with a space", "GET %p HTTP/1.1\r\n X-A: a\r\n" + H + "\r\n", 400));
        // framing (request smuggling shapes)
        c.add(head("Content-Length and Transfer-Encoding", "POST %p HTTP/1.1\r\n" + H + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400));
        c.add(head("duplicate Content-Length, same value", "POST %p HTTP/1.1\r\n" + H + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 400));
        c.add(head("duplicate Content-Length, different values", "POST %p HTTP/1.1\r\n" + H + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400));
        c.add(head("Content-Length list", "POST %p HTTP/1.1\r\n" + H + "Content-Length: 5, 5\r\n\r\nhello", 400));
        c.add(head("non-numeric Content-Length", "POST %p HTTP/1.1\r\n" + H + "Content-Length: abc\r\n\r\n", 400));
        c.add(head("signed Content-Length", "POST %p HTTP/1.1\r\n" + H + "Content-Length: +5\r\n\r\nhello", 400));
        c.add(head("negative Content-Length", "POST %p HTTP/1.1\r\n" + H + "Content-Length: -1\r\n\r\n", 400));
        c.add(head("hex Content-Length", "POST %p HTTP/1.1\r\n" + H + "Content-Length: 0x5\r\n\r\nhello", 400));
        c.add(head("overflowing Content-Length", "POST %p HTTP/1.1\r\n" + H + "Content-Length: 99999999999999999999\r\n\r\n", 400));
        c.add(head("Transfer-Encoding not ending in chunked", "POST %p HTTP/1.1\r\n" + H + "Transfer-Encoding: gzip\r\n\r\nabc", 400));
        c.add(head("Transfer-Encoding chunked, gzip", "POST %p HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", 400));
        c.add(head("Transfer-Encoding chunked twice", "POST %p HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400));
        c.add(head("Transfer-Encoding identity, chunked", "POST %p HTTP/1.1\r\n" + H + "Transfer-Encoding: identity, chunked\r\n\r\n0\r\n\r\n", 501));
        c.add(head("Transfer-Encoding gzip, chunked", "POST %p HTTP/1.1\r\n" + H + "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501));
        c.add(head("Transfer-Encoding chunked, identity", "POST %p HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n", 400));
        c.add(head("Transfer-Encoding look-alike", "POST %p HTTP/1.1\r\n" + H + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 400));
        c.add(head("Transfer-Encoding in HTTP/1.0", "POST %p HTTP/1.0\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400));
        c.add(head("space in Transfer-Encoding name", "POST %p HTTP/1.1\r\n" + H + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400));
        String chunked = "POST %p HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n";
        c.add(body("invalid chunk size", chunked + "zz\r\nhello\r\n0\r\n\r\n", 400));
        c.add(body("chunk size overflow", chunked + "ffffffffffffffffff\r\nhello\r\n0\r\n\r\n", 400));
        c.add(body("negative chunk size", chunked + "-5\r\nhello\r\n0\r\n\r\n", 400));
        c.add(body("space after chunk size", chunked + "5 \r\nhello\r\n0\r\n\r\n", 400));
        c.add(body("chunk data longer than its size", chunked + "3\r\nhello\r\n0\r\n\r\n", 400));
        c.add(body("chunk size line ending in bare LF", chunked + "5\nhello\r\n0\r\n\r\n", 400));
        c.add(body("chunk extension without a name", chunked + "5;\r\nhello\r\n0\r\n\r\n", 400));
        c.add(body("chunk extension without a name, after BWS", chunked + "5 ; \r\nhello\r\n0\r\n\r\n", 400));
        c.add(body("chunk extension with a value but no name", chunked + "5;=x\r\nhello\r\n0\r\n\r\n", 400));
        c.add(body("second chunk extension without a name", chunked + "5;a=\"x;y\";\r\nhello\r\n0\r\n\r\n", 400));
        c.add(body("last chunk's extension without a name", chunked + "5;a\r\nhello\r\n0;\r\n\r\n", 400));
        c.add(body("chunk extension longer than the line limit", chunked + "5;" + "x".repeat(9000) + "\r\nhello\r\n0\r\n\r\n", 400));
        c.add(body("chunk extensions outweighing the data", chunked + ("1;" + "y".repeat(1000) + "\r\nz\r\n").repeat(40) + "0\r\n\r\n", 400));
        return c;
    }

    private static Case head(String name, String request, int status) {
        return new Case(name, request, status, false);
    }

    private static Case body(String name, String request, int status) {
        return new Case(name, request, status, true);
    }

    @BeforeAll
    static void start() {
        OnceOnly.inThe311Fork(); // none of it reaches Python unless the head is valid
        ServerConfig config = ServerConfig.defaults().withAccessLog(false);
        server = new TestServer("apxtest.hostile_apps", "app", config.withLimits(config.limits().withMaxBody(1000)));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void isRefusedAndTheConnectionCloses(Case c) throws Exception {
        String probe = "/probe-" + Integer.toHexString(c.name().hashCode());
        String before = AppState.stats(server.port());

        String response = RawHttp.exchange(server.port(), c.request().replace("%p", probe));

        assertThat(response).as("response").startsWith("HTTP/1.1 " + c.status() + " ").contains("connection: close\r\n")
                .doesNotContain("TIMEOUT");
        assertThat(response.split("HTTP/1.1 ", -1)).as("exactly one response").hasSize(2);
        AppState.awaitIdle(server.port());
        String seen = AppState.seen(server.port());
        if (c.headReachesApp()) {
            assertThat(seen).contains(probe);
            assertThat(AppState.count(AppState.stats(server.port()), "completed")).as("handlers that completed")
                    .isEqualTo(AppState.count(before, "completed"));
        } else {
            assertThat(seen).doesNotContain(probe);
        }
        assertThat(seen).contains("\"malformed\": []");
        String good = RawHttp.exchange(server.port(), "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        assertThat(good).startsWith("HTTP/1.1 200 OK\r\n").endsWith("2 bytes");
    }
}
