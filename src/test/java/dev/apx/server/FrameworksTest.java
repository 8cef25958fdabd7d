package dev.apx.server;

import dev.apx.python.PyRef;
import dev.apx.python.TestPython;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The examples/ apps (Starlette, FastAPI, Django) served by apx and called over HTTP. Their
 * dependencies (pydantic-core...) have wheels for CPython 3.11 only here, so this runs in the 3.11
 * fork and is skipped in the others.
 */
public class FrameworksTest {
    private static final Path EXAMPLES = Path.of("examples").toAbsolutePath();
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    public static void frameworksInstalled() { // also RealClientsTest's
        assumeTrue(TestPython.frameworks(), "this venv has no frameworks (the 3.11, 3.14 and 3.15 venvs do)");
        TestPython.interpreter().run(gil -> {
            try (PyRef sys = gil.importModule("sys"); PyRef path = sys.getAttr(gil, "path")) {
                path.callMethod(gil, "insert", 0, EXAMPLES.toString()).close();
            }
        });
    }

    /** Leaves sys.path as it was: other tests of this JVM check it. */
    @AfterAll
    public static void restoreSysPath() { // also RealClientsTest's
        TestPython.interpreter().run(gil -> {
            try (PyRef sys = gil.importModule("sys"); PyRef path = sys.getAttr(gil, "path")) {
                try (PyRef present = path.callMethod(gil, "__contains__", EXAMPLES.toString())) {
                    if (present.isTrue(gil)) {
                        path.callMethod(gil, "remove", EXAMPLES.toString()).close();
                    }
                }
            }
        });
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void starlette() throws Exception {
        try (TestServer server = new TestServer("starlette_app", "app")) {
            assertThat(send(HttpRequest.newBuilder(server.uri("/"))).body()).isEqualTo("Hello from Starlette");
            assertThat(send(HttpRequest.newBuilder(server.uri("/users/ada"))).body())
                    .isEqualTo("{\"user\":\"ada\",\"started\":true}");
            assertThat(send(HttpRequest.newBuilder(server.uri("/echo")).POST(HttpRequest.BodyPublishers.ofString("héllo"))).body())
                    .isEqualTo("{\"length\":6,\"text\":\"héllo\"}");
            assertThat(send(HttpRequest.newBuilder(server.uri("/missing"))).statusCode()).isEqualTo(404);
        }
    }

    @Test
    void fastapi() throws Exception {
        try (TestServer server = new TestServer("fastapi_app", "app")) {
            assertThat(send(HttpRequest.newBuilder(server.uri("/"))).body()).isEqualTo("{\"message\":\"Hello from FastAPI\"}");
            assertThat(send(HttpRequest.newBuilder(server.uri("/items/42?q=x"))).body()).isEqualTo("{\"item_id\":42,\"q\":\"x\"}");
            assertThat(send(HttpRequest.newBuilder(server.uri("/items/nope"))).statusCode()).isEqualTo(422);
            HttpResponse<String> created = send(HttpRequest.newBuilder(server.uri("/items")).header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"pen\", \"price\": 2.5, \"tags\": [\"office\"]}")));
            assertThat(created.body()).isEqualTo("{\"name\":\"pen\",\"price_with_tax\":3.0,\"tags\":[\"office\"]}");
            HttpResponse<String> invalid = send(HttpRequest.newBuilder(server.uri("/items")).header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"pen\"}")));
            assertThat(invalid.statusCode()).isEqualTo(422);
            HttpResponse<String> stream = send(HttpRequest.newBuilder(server.uri("/stream")));
            assertThat(stream.headers().firstValue("transfer-encoding")).hasValue("chunked");
            assertThat(stream.body()).startsWith("line 0\nline 1\n").endsWith("line 9\n");
            HttpResponse<String> file = send(HttpRequest.newBuilder(server.uri("/file")));
            assertThat(file.body()).isEqualTo(Files.readString(EXAMPLES.resolve("hello.py")));
            assertThat(file.headers().firstValue("content-type")).get().asString().startsWith("text/x-python");
        }
    }

    @Test
    void django() throws Exception {
        try (TestServer server = new TestServer("djangoapp.asgi", "application")) {
            assertThat(send(HttpRequest.newBuilder(server.uri("/"))).body()).isEqualTo("Hello from Django");
            assertThat(send(HttpRequest.newBuilder(server.uri("/hello/ada?q=1"))).body())
                    .isEqualTo("{\"hello\": \"ada\", \"method\": \"GET\", \"query\": \"1\"}");
            assertThat(send(HttpRequest.newBuilder(server.uri("/echo")).POST(HttpRequest.BodyPublishers.ofString("[1, 2]"))).body())
                    .isEqualTo("{\"received\": [1, 2]}");
            assertThat(send(HttpRequest.newBuilder(server.uri("/stream"))).body()).isEqualTo("part 0\npart 1\npart 2\n");
            assertThat(send(HttpRequest.newBuilder(server.uri("/missing"))).statusCode()).isEqualTo(404);
        }
    }
}
