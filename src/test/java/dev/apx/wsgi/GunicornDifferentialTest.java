package dev.apx.wsgi;

import dev.apx.ChildProcesses;
import dev.apx.python.TestPython;
import dev.apx.server.RawHttp;
import dev.apx.server.Server;
import dev.apx.server.api.Response;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same requests to apx ({@code --interface wsgi}) and to Gunicorn ({@code -k gthread}, from
 * the test venv) serving the same WSGI apps: a plain PEP 3333 app ({@code apxtest.wsgi_apps}), the
 * Flask example and the Django example's {@code wsgi.py}. Status, headers and body must agree,
 * except the date, server and connection headers: Gunicorn names the connection's fate in every
 * response, apx (as Uvicorn) only when it closes. Not compared: HTTP/1.0 requests, which get an
 * HTTP/1.0 status line from Gunicorn and HTTP/1.1 from apx (as from Uvicorn: RFC 9110 section 2.5,
 * a server sends its own version). Where else apx differs, the case says why.
 */
class GunicornDifferentialTest {
    private static final Path EXAMPLES = Path.of("examples").toAbsolutePath();
    private static final Path TEST_APPS = Path.of("target/test-classes/python").toAbsolutePath();
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final List<String> IGNORED = List.of("date", "server", "connection");

    private record Pair(WsgiTestServer apx, Process gunicorn, int gunicornPort) {
    }

    private static final Map<String, Pair> SERVED = new TreeMap<>();

    @BeforeAll
    static void start() throws Exception {
        List<String> path = List.of(EXAMPLES.toString());
        Map<String, String[]> apps = Map.of("raw", new String[]{"apxtest.wsgi_apps", "app"},
                "flask", new String[]{"flask_app", "app"},
                "django", new String[]{"djangoapp.wsgi", "application"});
        Map<String, Process> processes = new TreeMap<>();
        Map<String, ChildProcesses.Output> outputs = new TreeMap<>();
        for (var app : apps.entrySet()) { // all three Gunicorns start at once
            // Port 0, read back from Gunicorn's "Listening at" line: a port found free and handed over could
            // be taken before Gunicorn binds it (by this JVM's own apx servers, or by a parallel test lane)
            Process gunicorn = new ProcessBuilder(TestPython.python().toString(), "-m", "gunicorn", "-k", "gthread",
                    "--threads", "8", "-w", "1", "--pythonpath", TEST_APPS + "," + EXAMPLES, "-b", "127.0.0.1:0",
                    "--log-level", "info", app.getValue()[0] + ":" + app.getValue()[1])
                    .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            processes.put(app.getKey(), gunicorn);
            outputs.put(app.getKey(), ChildProcesses.watch(gunicorn, LISTENING));
        }
        for (var app : apps.entrySet()) {
            String name = app.getKey();
            WsgiTestServer apx = new WsgiTestServer(app.getValue()[0], app.getValue()[1], WsgiConfig.defaults(),
                    ServerConfig.defaults().withAccessLog(false), name.equals("raw") ? List.of() : path);
            int port = outputs.get(name).port(0).get(15, TimeUnit.SECONDS); // logged once Gunicorn listens
            SERVED.put(name, new Pair(apx, processes.get(name), port));
        }
    }

    private static final Pattern LISTENING = Pattern.compile("Listening at: http://127\\.0\\.0\\.1:(\\d+)");

    @AfterAll
    static void stop() throws Exception {
        for (Pair pair : SERVED.values()) {
            pair.gunicorn().destroy();
            pair.gunicorn().waitFor(10, TimeUnit.SECONDS);
            pair.apx().close();
        }
        SERVED.clear();
    }

    record Answer(int status, Map<String, List<String>> headers, String body) {
    }

    private static Answer ask(int port, String method, String path, String body, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            request.headers(headers);
        }
        HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        Map<String, List<String>> kept = new TreeMap<>(response.headers().map());
        IGNORED.forEach(kept::remove);
        return new Answer(response.statusCode(), kept, response.body());
    }

    private static void agree(String app, String method, String path, String body, String... headers) throws Exception {
        Pair pair = SERVED.get(app);
        Answer fromApx = ask(pair.apx().port(), method, path, body, headers);
        Answer fromGunicorn = ask(pair.gunicornPort(), method, path, body, headers);
        assertThat(fromApx).as("%s: %s %s", app, method, path).isEqualTo(fromGunicorn);
    }

    @Test
    void flaskAnswersAgree() throws Exception {
        agree("flask", "GET", "/", null);
        agree("flask", "HEAD", "/", null);
        agree("flask", "GET", "/json?q=caf%C3%A9&x=1", null);
        agree("flask", "POST", "/echo", "name=value&other=1", "Content-Type", "application/x-www-form-urlencoded");
        agree("flask", "POST", "/echo", "x".repeat(300_000));
        agree("flask", "GET", "/stream", null);
        agree("flask", "GET", "/file", null);
        agree("flask", "GET", "/file", null, "Range", "bytes=10-19");
        agree("flask", "GET", "/go", null);
        agree("flask", "GET", "/missing", null);
        // not compared: a 405's Allow header, whose order is a Python set's (it differs between processes)
    }

    @Test
    void djangoAnswersAgree() throws Exception {
        agree("django", "GET", "/plain", null);
        agree("django", "HEAD", "/plain", null);
        agree("django", "GET", "/hello/world?q=a+b", null);
        agree("django", "POST", "/echo", "{\"a\": [1, 2]}", "Content-Type", "application/json");
        agree("django", "GET", "/missing", null);
        agree("django", "GET", "/", null, "Cookie", "sessionid=abc; other=1");
    }

    @Test
    void plainWsgiAnswersAgree() throws Exception {
        for (String path : List.of("/environ?a=1&b=%20x", "/stream", "/write", "/status", "/status?418+I'm+a+teapot", "/headers",
                "/redirect", "/empty", "/file", "/file-unsized", "/big?300000", "/missing")) {
            agree("raw", "GET", path, null);
        }
        agree("raw", "HEAD", "/stream", null);
        agree("raw", "HEAD", "/big?1000", null);
        agree("raw", "POST", "/echo", "hello");
        agree("raw", "POST", "/echo-length", "y".repeat(1_000_000));
        agree("raw", "GET", "/cookies", null, "Cookie", "a=1; b=2");
        agree("raw", "GET", "/environ", null, "Content-Type", "text/x-test", "X-Repeated", "1", "X-Repeated", "2");
    }

    /**
     * Pipelined requests: Gunicorn's gthread worker answers the first and drops the rest it had
     * read (it does not support pipelining), so apx's answers are checked against what they must be.
     */
    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        Raw pipelined = new Raw("pipelined, HEAD among them",
                "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nfirst"
                        + "GET /stream HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "HEAD /big?1000 HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "GET /empty HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nConnection: close\r\n\r\nlast",
                false, false, true, false, false);
        List<String> answers = rawAnswers(SERVED.get("raw").apx().port(), pipelined);
        assertThat(answers.get(0)).startsWith("HTTP/1.1 200 OK\n").endsWith("\n\nfirst");
        assertThat(answers.get(1)).contains("transfer-encoding: chunked").endsWith("\n\nchunk0\nchunk1\nchunk2\nchunk3\nchunk4\n");
        assertThat(answers.get(2)).contains("content-length: 1000").endsWith("\n\n");
        assertThat(answers.get(3)).startsWith("HTTP/1.1 204 No Content\n");
        assertThat(answers.get(4)).endsWith("\n\nlast");
        assertThat(answers.get(5)).isEqualTo("then: ");
    }

    /**
     * start_response(status, headers, exc_info) before anything was sent replaces the status and
     * the headers (PEP 3333). Gunicorn keeps the first call's headers and appends the second's
     * (two Content-Type headers here); apx sends the second call's alone.
     */
    @Test
    void excInfoReplacesTheHeadersNotYetSent() throws Exception {
        Pair pair = SERVED.get("raw");
        Answer fromApx = ask(pair.apx().port(), "GET", "/exc-info", null);
        Answer fromGunicorn = ask(pair.gunicornPort(), "GET", "/exc-info", null);
        assertThat(fromApx).isEqualTo(new Answer(500, Map.of("content-length", List.of("5"), "content-type", List.of("text/plain")), "oops\n"));
        assertThat(fromGunicorn.headers().get("content-type")).containsExactly("text/plain", "text/plain");
        assertThat(fromGunicorn.body()).isEqualTo(fromApx.body());
    }

    /**
     * A WSGI error before the response is a 500 from both; the bodies differ on purpose: Gunicorn
     * writes an HTML page, apx the plain "Internal Server Error" of its ASGI path (as Uvicorn).
     * A header value with CR LF (a response-splitting attempt) is refused by both with a 500: the
     * app produced it.
     */
    @Test
    void errorsBeforeTheResponseAre500FromBoth() throws Exception {
        Pair pair = SERVED.get("raw");
        for (String path : List.of("/raise-before", "/twice")) {
            Answer fromApx = ask(pair.apx().port(), "GET", path, null);
            Answer fromGunicorn = ask(pair.gunicornPort(), "GET", path, null);
            assertThat(fromApx.status()).as(path).isEqualTo(500).isEqualTo(fromGunicorn.status());
        }
        Answer fromApx = ask(pair.apx().port(), "GET", "/inject", null);
        Answer fromGunicorn = ask(pair.gunicornPort(), "GET", "/inject", null);
        assertThat(fromApx.status()).isEqualTo(500).isEqualTo(fromGunicorn.status());
        assertThat(fromApx.headers()).doesNotContainKeys("x-evil", "x-value");
        assertThat(fromGunicorn.headers()).doesNotContainKeys("x-evil", "x-value");
    }

    /** A raw exchange: {@code request} bytes, then one response per entry of {@code heads} (true: a HEAD response). */
    record Raw(String name, String request, boolean... heads) {
    }

    private static List<String> rawAnswers(int port, Raw raw) throws Exception {
        List<String> answers = new ArrayList<>();
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(raw.request().getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            for (boolean head : raw.heads()) {
                RawHttp.Response response = RawHttp.read(in, head);
                StringBuilder text = new StringBuilder(response.statusLine()).append('\n');
                String framing = ""; // Gunicorn puts its transfer-encoding before the app's headers, apx after
                for (String[] header : response.headers()) {
                    if (header[0].equals("transfer-encoding")) {
                        framing = header[0] + ": " + header[1] + "\n";
                    } else if (!IGNORED.contains(header[0])) {
                        text.append(header[0]).append(": ").append(header[1]).append('\n');
                    }
                }
                text.append(framing);
                answers.add(text.append('\n').append(response.body()).toString());
            }
            if (raw.request().contains("Connection: close") || raw.heads().length == 0) {
                answers.add("then: " + withoutIgnoredHeaders(RawHttp.readAll(in)));
            }
        }
        return answers;
    }

    /**
     * The raw text read until the close, without the ignored headers and transfer-encoding (whose
     * place differs; the chunks show it), lower-cased: Gunicorn writes chunk sizes in upper-case hex.
     */
    private static String withoutIgnoredHeaders(String text) {
        return text.replaceAll("(?im)^(date|server|connection|transfer-encoding): [^\r\n]*\r\n", "").toLowerCase(java.util.Locale.ROOT);
    }

    static List<Raw> rawCases() {
        String big = "0123456789abcdef".repeat(16 * 1024); // 256 KiB
        return List.of(
                new Raw("chunked upload read whole",
                        "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n", false),
                new Raw("chunked upload read in pieces and by line",
                        "POST /echo-parts HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                + "5\r\nab\ncd\r\n7\r\nef\ngh\ni\r\n3\r\njkl\r\n0\r\n\r\n", false),
                new Raw("a 256 KiB chunked upload",
                        "POST /echo-length HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                + Integer.toHexString(big.length()) + "\r\n" + big + "\r\n0\r\n\r\n", false),
                new Raw("percent-encoded UTF-8 and invalid UTF-8 in the path: PATH_INFO holds the bytes",
                        "GET /environ/caf%C3%A9/%FF%2Fx+y?q=%20x&y=%C3%A9+z HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", false),
                new Raw("hostile: a header with an underscore cannot pose as the dashed one",
                        "GET /environ HTTP/1.1\r\nHost: t\r\nX-Auth: good\r\nX_Auth: evil\r\nConnection: close\r\n\r\n", false),
                new Raw("duplicate request headers joined with commas",
                        "GET /environ HTTP/1.1\r\nHost: t\r\nX-Dup: 1\r\nx-dup: 2\r\nAccept: a\r\nAccept: b\r\nConnection: close\r\n\r\n", false),
                new Raw("custom status and reason phrase", "GET /status?299+Custom+Reason HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", false),
                new Raw("start_response(exc_info) after the body started: the response is cut off",
                        "GET /exc-info-late HTTP/1.1\r\nHost: t\r\n\r\n"),
                new Raw("an exception after the response started: the response is cut off",
                        "GET /raise-after HTTP/1.1\r\nHost: t\r\n\r\n"));
    }

    @Test
    void rawRequestsGetTheSameAnswers() throws Exception {
        Pair pair = SERVED.get("raw");
        for (Raw raw : rawCases()) {
            List<String> fromGunicorn;
            List<String> fromApx;
            try {
                fromGunicorn = rawAnswers(pair.gunicornPort(), raw);
                fromApx = rawAnswers(pair.apx().port(), raw);
            } catch (java.io.IOException e) {
                throw new AssertionError(raw.name() + ": " + e, e);
            }
            assertThat(fromApx).as(raw.name()).isEqualTo(fromGunicorn);
        }
    }
}
