package dev.apx.server;

import dev.apx.ChildProcesses;
import dev.apx.python.TestPython;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same requests to apx and to Uvicorn ({@code --loop uvloop --http httptools}, from the test
 * venv) serving the same {@code apxtest.http_apps}: status, headers (except date and server) and
 * body must agree. Not compared:
 * http.response.pathsend (Uvicorn does not offer the extension) and the server/date values.
 *
 * <p>{@link #rawRequestsGetTheSameAnswers} sends what java.net.http cannot (pipelining, HTTP/1.0,
 * chunked uploads, 100-continue, malformed or odd request lines) over raw sockets and compares
 * every response on the connection, in order. Where apx deliberately differs, the case says why.
 */
class UvicornDifferentialTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static TestServer apx;
    private static Process uvicorn;
    private static int uvicornPort;

    @BeforeAll
    static void start() throws Exception {
        apx = new TestServer("apxtest.http_apps", "app");
        // Port 0, read back from Uvicorn's "running on" line: a port found free and handed over could be
        // taken before Uvicorn binds it (by a parallel test lane)
        uvicorn = new ProcessBuilder(TestPython.python().toString(), "-m", "uvicorn", "--loop", "uvloop", "--http", "httptools",
                "--app-dir", Path.of("target/test-classes/python").toAbsolutePath().toString(),
                "--port", "0", "--no-access-log", "apxtest.http_apps:app")
                .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        uvicornPort = ChildProcesses.watch(uvicorn, ChildProcesses.UVICORN_RUNNING_ON).port(0).get(15, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        if (uvicorn != null) {
            uvicorn.destroy();
            uvicorn.waitFor(10, TimeUnit.SECONDS);
        }
        if (apx != null) {
            apx.close();
        }
    }

    record Answer(int status, Map<String, List<String>> headers, String body) {
    }

    private static Answer ask(int port, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        Map<String, List<String>> headers = new TreeMap<>(response.headers().map());
        headers.remove("date");
        headers.remove("server");
        return new Answer(response.statusCode(), headers, response.body());
    }

    /** A raw exchange: {@code request} bytes, then one response per entry of {@code heads} (true: a HEAD response). */
    record Raw(String name, String request, boolean... heads) {
    }

    /** The responses read off one connection, date and server dropped, then whatever came before the close. */
    private static List<String> rawAnswers(int port, Raw raw) throws Exception {
        List<String> answers = new java.util.ArrayList<>();
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(raw.request().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            java.io.InputStream in = socket.getInputStream();
            for (boolean head : raw.heads()) {
                RawHttp.Response response = RawHttp.read(in, head);
                StringBuilder text = new StringBuilder(response.statusLine()).append('\n');
                for (String[] header : response.headers()) {
                    if (!header[0].equals("date") && !header[0].equals("server")) {
                        text.append(header[0]).append(": ").append(header[1]).append('\n');
                    }
                }
                answers.add(text.append('\n').append(response.body()).toString());
            }
            if (raw.request().contains("Connection: close") || raw.request().contains(" HTTP/1.0\r\n\r\n")) {
                answers.add("then: " + RawHttp.readAll(in));
            }
        }
        return answers;
    }

    private static final String BIG = "0123456789abcdef".repeat(64 * 1024); // 1 MiB

    static List<Raw> rawCases() {
        return List.of(
                new Raw("pipelined, HEAD among them, answered in order",
                        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nfirst"
                                + "GET /stream HTTP/1.1\r\nHost: t\r\n\r\n"
                                + "HEAD /echo-length HTTP/1.1\r\nHost: t\r\n\r\n"
                                + "GET /no-content HTTP/1.1\r\nHost: t\r\n\r\n"
                                + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nConnection: close\r\n\r\nlast",
                        false, false, true, false, false),
                new Raw("HTTP/1.0 with a length", "POST /echo HTTP/1.0\r\nContent-Length: 3\r\n\r\nten", false),
                new Raw("HTTP/1.0 HEAD", "HEAD /stream HTTP/1.0\r\n\r\n", true),
                new Raw("HEAD of a sized body", "HEAD /big?1000 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", true),
                new Raw("chunked upload with extensions and trailers",
                        "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n", false),
                new Raw("Expect: 100-continue with the body sent at once",
                        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\nConnection: close\r\n\r\ndata",
                        false, false),
                new Raw("duplicate request headers kept in order",
                        "GET /headers HTTP/1.1\r\nHost: t\r\nX-Dup: 1\r\nx-other: a\r\nX-DUP: 2\r\nConnection: close\r\n\r\n", false),
                new Raw("percent-encoded UTF-8, an encoded slash, a raw query",
                        "GET /path/caf%C3%A9/a%2Fb%20c+d?q=%20x&y=%C3%A9+z HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", false),
                new Raw("invalid UTF-8 in the path", "GET /path/%FF%FE HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", false),
                new Raw("empty query after ?", "GET /path/q? HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", false),
                new Raw("absolute-form request target",
                        "GET http://example.com/path/abs?x=1 HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n", false),
                new Raw("204, 304 and an empty 404 framed by the server",
                        "GET /status?204 HTTP/1.1\r\nHost: t\r\n\r\nGET /status?304 HTTP/1.1\r\nHost: t\r\n\r\n"
                                + "GET /status?404 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", false, false, false),
                new Raw("a 1 MiB upload and a 3 MB download on one connection",
                        "POST /echo-length HTTP/1.1\r\nHost: t\r\nContent-Length: " + BIG.length() + "\r\n\r\n" + BIG
                                + "GET /big?3000000 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", false, false),
                new Raw("X-Forwarded-For/Proto from the trusted loopback peer",
                        "GET /client HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: 203.0.113.7, 127.0.0.1\r\nX-Forwarded-Proto: https\r\n"
                                + "Connection: close\r\n\r\n", false),
                new Raw("an exception before the response", "GET /raise-before HTTP/1.1\r\nHost: t\r\n\r\n", false),
                new Raw("a malformed request line", "this is not http\r\n\r\n", false),
                new Raw("a space in the request target", "GET /path/ x HTTP/1.1\r\nHost: t\r\n\r\n", false),
                new Raw("two different Content-Length headers",
                        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", false),
                new Raw("raw UTF-8 bytes in the request target", "GET /path/caf\u00c3\u00a9 HTTP/1.1\r\nHost: t\r\n\r\n", false),
                new Raw("a bare CR ending the head", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\rabc", false),
                new Raw("a chunk extension without a name",
                        "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2;\r\nab\r\n0\r\n\r\n", false),
                new Raw("a second chunk extension without a name",
                        "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2;a;\r\nab\r\n0\r\n\r\n", false));
    }

    @Test
    void rawRequestsGetTheSameAnswers() throws Exception {
        for (Raw raw : rawCases()) {
            assertThat(rawAnswers(apx.port(), raw)).as(raw.name()).isEqualTo(rawAnswers(uvicornPort, raw));
        }
    }

    /**
     * HTTP/1.0 is where apx deliberately differs. Uvicorn (httptools and h11 alike) closes every
     * HTTP/1.0 connection and frames an unsized 1.0 response as chunked; apx keeps a 1.0 connection
     * that asks for keep-alive when the response has a length (and says so: clients such as
     * {@code ab -k} reuse it), and ends an unsized 1.0 body with the close, because a 1.0 client
     * cannot decode chunked encoding (RFC 9112 section 7.1 forbids sending it). The bodies agree.
     */
    @Test
    void http10IsWhereApxDeliberatelyDiffers() throws Exception {
        Raw keepAlive = new Raw("HTTP/1.0 keep-alive",
                "POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\none", false);
        assertThat(rawAnswers(apx.port(), keepAlive).getFirst()).contains("\nconnection: keep-alive\n").endsWith("\n\none");
        assertThat(rawAnswers(uvicornPort, keepAlive).getFirst()).contains("\nconnection: close\n").endsWith("\n\none");

        Raw unsized = new Raw("HTTP/1.0 without a length", "GET /stream HTTP/1.0\r\n\r\n", false);
        List<String> fromApx = rawAnswers(apx.port(), unsized);
        List<String> fromUvicorn = rawAnswers(uvicornPort, unsized);
        assertThat(fromApx.getFirst()).doesNotContain("transfer-encoding").contains("\nconnection: close\n");
        assertThat(fromUvicorn.getFirst()).contains("\ntransfer-encoding: chunked\n").contains("\nconnection: close\n");
        assertThat(bodyOf(fromApx.getFirst())).isEqualTo(bodyOf(fromUvicorn.getFirst())).isEqualTo("chunk0\nchunk1\nchunk2\nchunk3\nchunk4\n");
    }

    /**
     * An HTTP version apx does not speak: Uvicorn (httptools) answers 400 "Invalid HTTP request
     * received." to all of them; apx answers 505 to a well-formed one (RFC 9110 15.6.6 names that
     * status for a major version the server does not support), and 400 to a malformed one, as
     * Uvicorn. Both refuse it before the app, at the request line, and close.
     */
    @Test
    void anUnsupportedVersionIsWhereApxAnswers505() throws Exception {
        for (String request : List.of("GET / HTTP/5.6", "GET / HTTP/5.6\r\nHost: t\r\n\r\n")) {
            Raw raw = new Raw(request, request, false);
            assertThat(rawAnswers(apx.port(), raw).getFirst()).as(request).startsWith("HTTP/1.1 505 HTTP Version Not Supported\n");
            assertThat(rawAnswers(uvicornPort, raw).getFirst()).as(request).startsWith("HTTP/1.1 400 Bad Request\n");
        }
        Raw malformed = new Raw("GET / FOO/1.1", "GET / FOO/1.1\r\nHost: t\r\n\r\n", false);
        assertThat(rawAnswers(apx.port(), malformed)).isEqualTo(rawAnswers(uvicornPort, malformed));
    }

    private static String bodyOf(String answer) {
        return answer.substring(answer.indexOf("\n\n") + 2);
    }

    @Test
    void apxAndUvicornAgree() throws Exception {
        List<String[]> requests = List.of(
                new String[]{"POST", "/echo", "hello"},
                new String[]{"GET", "/echo", null},
                new String[]{"POST", "/echo-length", "x".repeat(300_000)},
                new String[]{"GET", "/stream", null},
                new String[]{"HEAD", "/stream", null},
                new String[]{"GET", "/big?100000", null},
                new String[]{"GET", "/no-content", null},
                new String[]{"GET", "/missing", null},
                new String[]{"GET", "/raise-before", null},
                new String[]{"GET", "/no-response", null},
                new String[]{"DELETE", "/echo", null});
        for (String[] r : requests) {
            Answer fromApx = ask(apx.port(), r[0], r[1], r[2]);
            Answer fromUvicorn = ask(uvicornPort, r[0], r[1], r[2]);
            assertThat(fromApx).as("%s %s", r[0], r[1]).isEqualTo(fromUvicorn);
        }
    }
}
