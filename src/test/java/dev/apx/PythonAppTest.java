package dev.apx;

import dev.apx.config.Interface;
import dev.apx.config.LifespanMode;
import dev.apx.python.TestPython;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The public API's in-process calls, on real FastAPI, Flask and plain ASGI/WSGI apps. */
class PythonAppTest {
    static final Path EXAMPLES = Path.of("examples");
    static final Path TEST_APPS = Path.of("target/test-classes/python");
    private static PythonRuntime python;
    private static PythonApp fastapi;
    private static PythonApp echo;
    private static Path lifespanLog;
    @BeforeAll
    static void load() throws Exception {
        python = Apx.python(TestPython.python());
        fastapi = python.app("fastapi_app:app", EXAMPLES);
        lifespanLog = Files.createTempFile("apx-lifespan", ".log");
        echo = python.app(AppOptions.of("apxjava.apps:echo", TEST_APPS).withEnv(Map.of("APX_JAVA_TEST_LOG", lifespanLog.toString())));
    }

    @AfterAll
    static void close() {
        if (fastapi != null) {
            fastapi.close();
        }
        echo.close();
    }

    private static AppResponse call(PythonApp app, AppRequest request) throws Exception {
        return app.call(request).get(20, TimeUnit.SECONDS);
    }

    @Test
    void getsFromFastApi() throws Exception {
        AppResponse root = call(fastapi, AppRequest.get("/"));
        assertThat(root.status()).isEqualTo(200);
        assertThat(root.bodyText()).isEqualTo("{\"message\":\"Hello from FastAPI\"}");
        assertThat(root.header("Content-Type")).isEqualTo("application/json");
        AppResponse item = call(fastapi, AppRequest.get("/items/42?q=caf%C3%A9"));
        assertThat(item.bodyText()).isEqualTo("{\"item_id\":42,\"q\":\"café\"}");
        assertThat(fastapi.appInterface()).isEqualTo("asgi3");
    }

    @Test
    void postsABodyToFastApi() throws Exception {
        byte[] json = "{\"name\":\"pen\",\"price\":2.5,\"tags\":[\"a\"]}".getBytes(StandardCharsets.UTF_8);
        AppResponse created = call(fastapi, AppRequest.post("/items", json, "application/json"));
        assertThat(created.status()).isEqualTo(200);
        assertThat(created.bodyText()).isEqualTo("{\"name\":\"pen\",\"price_with_tax\":3.0,\"tags\":[\"a\"]}");
        AppResponse invalid = call(fastapi, AppRequest.post("/items", "{}".getBytes(StandardCharsets.UTF_8), "application/json"));
        assertThat(invalid.status()).isEqualTo(422);
        assertThat(call(fastapi, AppRequest.get("/nowhere")).status()).isEqualTo(404);
    }

    @Test
    void streamedAndFileResponsesAreCollected() throws Exception {
        AppResponse stream = call(fastapi, AppRequest.get("/stream"));
        assertThat(stream.bodyText()).startsWith("line 0\nline 1\n").endsWith("line 9\n");
        AppResponse file = call(fastapi, AppRequest.get("/file"));
        assertThat(file.body()).isEqualTo(Files.readAllBytes(EXAMPLES.resolve("hello.py")));
    }

    @Test
    void headersStatusAndScopeReachTheApp() throws Exception {
        AppRequest request = AppRequest.post("/a%20b/c?x=1&y=%2F", new byte[]{1, 2, 3}, "application/octet-stream")
                .header("X-Status", "201").header("X-Twice", "1").header("x-twice", "2");
        AppResponse response = call(echo, request);
        assertThat(response.status()).isEqualTo(201);
        assertThat(response.headers()).containsExactly(new Header("content-type", "application/json"), new Header("x-one", "1"),
                new Header("set-cookie", "a=1"), new Header("set-cookie", "b=2"));
        assertThat(response.headers().get(2)).isEqualTo(Map.entry("set-cookie", "a=1"));
        String report = response.bodyText();
        assertThat(report).contains("\"method\": \"POST\"", "\"path\": \"/a b/c\"", "\"raw_path\": \"/a%20b/c\"",
                "\"query_string\": \"x=1&y=%2F\"", "\"root_path\": \"\"", "\"body_length\": 3", "\"http_version\": \"1.1\"",
                "[\"x-twice\", \"1\"], [\"x-twice\", \"2\"]", "[\"content-length\", \"3\"]", "[\"host\", \"localhost\"]",
                "\"client\": null", "\"scheme\": \"http\"");
    }

    @Test
    void anAppsOwnGcThresholdOutlivesTheNextAppsLoad() throws Exception {
        try (PythonApp own = python.app(AppOptions.of("apxjava.own_gc:app", TEST_APPS).withLifespan(LifespanMode.OFF));
             PythonApp next = python.app(AppOptions.of("apxjava.apps:echo", TEST_APPS).withLifespan(LifespanMode.OFF))) {
            assertThat(call(own, AppRequest.get("/")).bodyText())
                    .as("apx's 10,000 at its import (the runtime's first load set it), its own after the next app's load")
                    .isEqualTo("(10000, 10, 10) (1234, 10, 10)");
            assertThat(next.appInterface()).isEqualTo("asgi3");
        }
    }

    @Test
    void rootPathPrefixesThePath() throws Exception {
        try (PythonApp mounted = python.app(AppOptions.of("apxjava.apps:echo", TEST_APPS).withRootPath("/py").withLifespan(LifespanMode.OFF))) {
            String report = call(mounted, AppRequest.get("/items")).bodyText();
            assertThat(report).contains("\"path\": \"/py/items\"", "\"root_path\": \"/py\"");
        }
    }

    @Test
    void aPathUnderTheRootPathKeepsItAndReachesTheRouteBelowIt() throws Exception {
        // ASGI's root_path is the mount point: /v312/x is the app's /x, and the URLs it makes hold /v312
        try (PythonApp mounted = python.app(AppOptions.of("apxjava.mounted:app", TEST_APPS).withRootPath("/v312"))) {
            AppResponse under = call(mounted, AppRequest.get("/v312/x"));
            assertThat(under.status()).isEqualTo(200);
            assertThat(under.bodyText()).isEqualTo("{\"path\":\"/v312/x\",\"root_path\":\"/v312\","
                    + "\"url\":\"http://localhost/v312/x\",\"url_for\":\"http://localhost/v312/x\"}");
            AppResponse relative = call(mounted, AppRequest.get("/x?q=1")); // relative to the mount point, as --root-path takes it
            assertThat(relative.status()).isEqualTo(200);
            assertThat(relative.bodyText()).contains("\"path\":\"/v312/x\"", "\"url_for\":\"http://localhost/v312/x\"");
            assertThat(call(mounted, AppRequest.get("/v312x")).status()).as("a prefix of a segment is not the mount point").isEqualTo(404);
            assertThat(call(mounted, AppRequest.get("/v312/v312/x")).status()).isEqualTo(404);
        }
    }

    @Test
    void aWsgiPathUnderTheRootPathLosesItInPathInfo() throws Exception {
        try (PythonApp mounted = python.app(AppOptions.of("apxjava.apps:wsgi_echo", TEST_APPS).withRootPath("/v312")
                .withInterface(dev.apx.config.Interface.WSGI))) {
            String under = call(mounted, AppRequest.get("/v312/x")).bodyText();
            assertThat(under).contains("\"SCRIPT_NAME\": \"/v312\"", "\"PATH_INFO\": \"/x\"");
            String relative = call(mounted, AppRequest.get("/x")).bodyText();
            assertThat(relative).contains("\"SCRIPT_NAME\": \"/v312\"", "\"PATH_INFO\": \"/x\"");
        }
    }

    @Test
    void theAppRunsOnTheLoopThreadNotTheCallers() throws Exception {
        // the first step too (in the server's default start mode it runs on the thread the request arrived on)
        // (from a thread other than the one that ran app(), which would pass for the loop's in that mode)
        AtomicReference<Object> reports = new AtomicReference<>();
        Thread caller = Thread.ofPlatform().start(() -> {
            try {
                reports.set(call(echo, AppRequest.get("/")).bodyText() + call(echo, AppRequest.post("/", new byte[10], "text/plain")).bodyText());
            } catch (Exception e) {
                reports.set(e);
            }
        });
        caller.join(30_000);
        assertThat(reports.get()).asString().contains("\"on_loop_thread\": true").doesNotContain("\"on_loop_thread\": false");
    }

    @Test
    void aVirtualThreadIsServed() throws Exception {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread thread = Thread.ofVirtual().start(() -> {
            try {
                result.set(echo.call(AppRequest.post("/items/7", new byte[300_000], "application/octet-stream"))
                        .get(20, TimeUnit.SECONDS).bodyText());
            } catch (Throwable e) {
                result.set(e);
            }
        });
        thread.join(30_000);
        assertThat(result.get()).asString().contains("\"path\": \"/items/7\"", "\"body_length\": 300000");
        Thread.ofVirtual().start(() -> result.set(fastapi.call(AppRequest.get("/items/7")).join().bodyText())).join(30_000);
        assertThat(result.get()).isEqualTo("{\"item_id\":7,\"q\":null}");
    }

    @Test
    void twoHundredConcurrentCalls() throws Exception {
        List<CompletableFuture<AppResponse>> calls = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            boolean framework = i % 2 == 0;
            calls.add((framework ? fastapi : echo).call(AppRequest.get(framework ? "/items/" + i : "/sleep/0.05?n=" + i)));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        for (int i = 0; i < 200; i++) {
            AppResponse response = calls.get(i).join();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.bodyText()).contains(i % 2 == 0 ? "\"item_id\":" + i + "," : "\"query_string\": \"n=" + i + "\"");
        }
    }

    @Test
    void aStreamedBodyIsReadAsItComes() throws Exception {
        StreamedResponse big = echo.stream(AppRequest.get("/big/100")).get(20, TimeUnit.SECONDS);
        assertThat(big.status()).isEqualTo(200);
        assertThat(big.header("content-type")).isEqualTo("application/octet-stream");
        byte[] body;
        try (java.io.InputStream in = big.body()) {
            body = in.readAllBytes();
        }
        assertThat(body).hasSize(100 * 65536);
        for (int i = 0; i < 100; i++) {
            assertThat(body[i * 65536]).isEqualTo((byte) (i % 251));
        }
        assertThat(echo.stream(AppRequest.get("/")).get(20, TimeUnit.SECONDS).body().readAllBytes()).asString(StandardCharsets.UTF_8)
                .contains("\"path\": \"/\"");
    }

    @Test
    void anUnreadStreamHoldsTheAppBack() throws Exception {
        StreamedResponse big = echo.stream(AppRequest.get("/big/400")).get(20, TimeUnit.SECONDS);
        Thread.sleep(300);
        int sent = Integer.parseInt(call(echo, AppRequest.get("/big-sent")).bodyText());
        assertThat(sent).as("64 KiB chunks sent while nobody reads (256 KiB queue)").isBetween(1, 8);
        try (java.io.InputStream in = big.body()) {
            assertThat(in.readAllBytes()).hasSize(400 * 65536);
        }
        assertThat(call(echo, AppRequest.get("/big-sent")).bodyText()).isEqualTo("400");
    }

    @Test
    void closingAStreamEarlyCancelsTheApp() throws Exception {
        StreamedResponse forever = echo.stream(AppRequest.get("/forever")).get(20, TimeUnit.SECONDS);
        try (java.io.InputStream in = forever.body()) {
            assertThat(new String(in.readNBytes(50_000), StandardCharsets.US_ASCII)).startsWith("tick\n");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.readString(lifespanLog).contains("forever cancelled") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(Files.readString(lifespanLog)).contains("forever cancelled");
    }

    @Test
    void anAppThatFailsBeforeAnsweringGivesA500() throws Exception {
        AppResponse response = call(echo, AppRequest.get("/fail"));
        assertThat(response.status()).isEqualTo(500);
        assertThat(response.bodyText()).isEqualTo("Internal Server Error");
    }

    @Test
    void servesAWsgiApp() throws Exception {
        servesFlask();
        servesPlainWsgi();
    }

    private void servesFlask() throws Exception {
        try (PythonApp flask = python.app(AppOptions.of("flask_app:app", EXAMPLES).withInterface(Interface.WSGI))) {
            assertThat(flask.appInterface()).isEqualTo("wsgi");
            assertThat(call(flask, AppRequest.get("/")).bodyText()).isEqualTo("Hello, world!");
            assertThat(call(flask, AppRequest.get("/json?q=z")).bodyText()).contains("\"query\":\"z\"");
            byte[] body = new byte[100_000];
            java.util.Arrays.fill(body, (byte) 'x');
            AppResponse echoed = call(flask, AppRequest.post("/echo", body, "application/x-test"));
            assertThat(echoed.body()).isEqualTo(body);
            assertThat(echoed.header("content-type")).isEqualTo("application/x-test");
            assertThat(call(flask, AppRequest.get("/stream")).bodyText()).isEqualTo("part 0\npart 1\npart 2\npart 3\npart 4\n");
            assertThat(call(flask, AppRequest.get("/go")).status()).isEqualTo(302);
        }
    }

    private void servesPlainWsgi() throws Exception {
        try (PythonApp wsgi = python.app(AppOptions.of("apxjava.apps:wsgi_echo", TEST_APPS).withInterface(Interface.WSGI)
                .withRootPath("/mount"))) {
            String report = call(wsgi, AppRequest.get("/a%2Fb?k=v").header("X-Thing", "t")).bodyText();
            assertThat(report).contains("\"SCRIPT_NAME\": \"/mount\"", "\"PATH_INFO\": \"/a/b\"", "\"QUERY_STRING\": \"k=v\"",
                    "\"HTTP_X_THING\": \"t\"");
            assertThat(report).doesNotContain("\"thread\": \"" + Thread.currentThread().getName() + "\"");
        }
    }

    @Test
    void servesAnAsgi2App() throws Exception {
        try (PythonApp app = python.app("apxtest.wsgi_apps:Asgi2Class", TEST_APPS)) {
            assertThat(app.appInterface()).isEqualTo("asgi2");
            assertThat(call(app, AppRequest.get("/two")).bodyText()).isEqualTo("asgi2 /two");
        }
    }

    @Test
    void lifespanShutdownRunsOnceAndCloseRefusesNewCalls() throws Exception {
        Path log = Files.createTempFile("apx-lifespan", ".log");
        PythonApp app = python.app(AppOptions.of("apxjava.apps:echo", TEST_APPS).withEnv(Map.of("APX_JAVA_TEST_LOG", log.toString())));
        assertThat(Files.readAllLines(log)).containsExactly("startup");
        CompletableFuture<AppResponse> slow = app.call(AppRequest.get("/sleep/0.3"));
        app.close(); // drains the slow call first
        assertThat(slow).isCompletedWithValueMatching(response -> response.status() == 200);
        app.close();
        assertThat(Files.readAllLines(log)).containsExactly("startup", "shutdown");
        assertThat(app.call(AppRequest.get("/"))).isCompletedExceptionally();
        assertThatThrownBy(() -> app.call(AppRequest.get("/")).join()).hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void badInputIsRefusedClearly() {
        assertThatThrownBy(() -> AppRequest.get("no-slash")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AppRequest.get("/").header("bad name", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AppRequest.get("/").header("x", "a\r\nb")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> python.app("nosuchmodule_xyz:app", TEST_APPS)).isInstanceOf(ApxException.class)
                .hasMessageContaining("nosuchmodule_xyz");
        assertThatThrownBy(() -> AppOptions.of("noattribute", TEST_APPS)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anotherPythonGetsARuntimeOfItsOwnInThisJvm() throws Exception {
        String running = python.version().substring(0, python.version().lastIndexOf('.'));
        // 3.14 and 3.15 run in the Debian testing root, where the pyenv-made venvs cannot run: each other
        String other = switch (running) {
            case "3.11" -> "py3.12";
            case "3.14" -> "py3.15";
            case "3.15" -> "py3.14";
            default -> "py3.11";
        };
        Path otherPython = TestPython.venv().getParent().resolve(other).resolve("bin/python");
        PythonRuntime second = Apx.python(otherPython);
        assertThat(second.version()).startsWith(other.substring(2) + ".");
        assertThat(Apx.python(otherPython)).as("one runtime per executable").isSameAs(second);
        assertThat(Apx.python(TestPython.python())).isSameAs(python);

        try (PythonApp here = python.app("apxjava.apps:which_python", TEST_APPS);
             PythonApp there = second.app("apxjava.apps:which_python", TEST_APPS)) {
            String fromHere = call(here, AppRequest.get("/")).bodyText();
            String fromThere = call(there, AppRequest.get("/")).bodyText();
            assertThat(fromHere).contains("\"version\": \"" + python.version() + "\"");
            assertThat(fromThere).contains("\"version\": \"" + second.version() + "\"");
            assertThat(runtimeId(fromHere)).as("two runtimes: two sys.modules").isNotEqualTo(runtimeId(fromThere));
        }
    }

    private static String runtimeId(String json) {
        return json.replaceAll(".*\"runtime\": (\\d+).*", "$1");
    }
}
