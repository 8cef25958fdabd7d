package dev.apx.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code --metrics} as Prometheus sees it: the packaged jar serving apxtest.metrics_app, its
 * endpoint scraped over HTTP and parsed by prometheus_client's parsers (text and OpenMetrics), the
 * counters checked against exactly the requests this test sent. One server (worker label set as the
 * supervisor of --workers sets it) serves the counting tests; the flag tests start their own.
 */
class MetricsIT {
    private static final Path PYTHON = Path.of(System.getProperty("apx.python311", ".venv/py3.11/bin/python")).toAbsolutePath();
    private static final Pattern METRICS_LINE = Pattern.compile("Metrics on http://([\\d.]+):(\\d+)/metrics");
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @TempDir
    static Path dir;
    private static ApxProcess apx;
    private static int metricsPort;

    @BeforeAll
    static void start() throws Exception {
        // As a worker of --workers: the flags' port is the supervisor's (taken here), the worker's endpoint is private.
        // The warm-up's coroutines count in runtime 0's bridge series (docs/metrics.md): run before the port opens,
        // they are in every test's "before" scrape, so the deltas below are the tests' requests alone.
        try (ServerSocket supervisors = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            apx = ApxProcess.start(dir, Map.of("APX_WORKER_ID", "7"), "--metrics", "--metrics-port",
                    String.valueOf(supervisors.getLocalPort()), "--warmup-mode", "before", "--no-access-log", "apxtest.metrics_app:app");
            Matcher line = METRICS_LINE.matcher(apx.stderr());
            assertThat(line.find()).as(apx.stderr()).isTrue();
            metricsPort = Integer.parseInt(line.group(2));
            assertThat(metricsPort).isNotEqualTo(supervisors.getLocalPort());
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (apx != null) {
            apx.close();
        }
    }

    @Test
    void countsExactlyTheRequestsSentSplitByStatusClass() throws Exception {
        Map<String, Double> before = scrape(metricsPort, s -> true);
        for (int i = 0; i < 7; i++) {
            assertThat(get("/").statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(get("/missing").statusCode()).isEqualTo(404);
        }
        for (int i = 0; i < 2; i++) {
            assertThat(get("/fail").statusCode()).isEqualTo(500);
        }
        HttpResponse<String> echo = CLIENT.send(HttpRequest.newBuilder(app("/echo"))
                .POST(HttpRequest.BodyPublishers.ofString("x".repeat(1000))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(echo.body()).hasSize(1000);
        String refused = rawRequest("GARBAGE\r\n\r\n");
        assertThat(refused).startsWith("HTTP/1.1 400");

        int appRequests = 7 + 3 + 2 + 1;
        Map<String, Double> after = scrape(metricsPort,
                s -> delta(s, before, "apx_bridge_hops_count{interpreter=0,worker=7}") >= appRequests);

        assertThat(delta(after, before, "apx_http_requests_total{method=GET,status=2xx,worker=7}")).isEqualTo(7);
        assertThat(delta(after, before, "apx_http_requests_total{method=GET,status=4xx,worker=7}")).as("3 x 404 and the 400")
                .isEqualTo(4);
        assertThat(delta(after, before, "apx_http_requests_total{method=GET,status=5xx,worker=7}")).isEqualTo(2);
        assertThat(delta(after, before, "apx_http_requests_total{method=POST,status=2xx,worker=7}")).isEqualTo(1);
        assertThat(delta(after, before, "apx_http_request_duration_seconds_count{worker=7}")).as("every response timed")
                .isEqualTo(appRequests + 1);
        assertThat(delta(after, before, "apx_http_request_duration_seconds_bucket{le=+Inf,worker=7}")).isEqualTo(appRequests + 1);
        assertThat(delta(after, before, "apx_http_request_body_bytes_total{worker=7}")).isEqualTo(1000);
        assertThat(delta(after, before, "apx_http_response_body_bytes_total{worker=7}"))
                .as("ok x7, nope x3, Internal Server Error x2, the echo, the 400's text")
                .isEqualTo(7 * 2 + 3 * 4 + 2 * 21 + 1000 + "Invalid HTTP request received.".length());
        assertThat(delta(after, before, "apx_http_rejected_requests_total{reason=invalid_request,worker=7}")).isEqualTo(1);
        assertThat(delta(after, before, "apx_bridge_hops_count{interpreter=0,worker=7}")).as("one per coroutine that ended").isEqualTo(appRequests);
        assertThat(delta(after, before, "apx_bridge_suspensions_count{interpreter=0,worker=7}")).isEqualTo(appRequests);
        assertThat(after.get("apx_bridge_enter_task_collisions_total{interpreter=0,worker=7}")).isZero();
        assertThat(after.get("apx_http_requests_in_flight{worker=7}")).isZero();
        assertThat(after).containsKeys("apx_http_connections_open{worker=7}", "apx_bridge_step_lock_waits_total{interpreter=0,worker=7}",
                "apx_bridge_stalls_total{interpreter=0,worker=7}", "apx_bridge_pokes_total{interpreter=0,worker=7}", "apx_bridge_loop_errors_total{interpreter=0,worker=7}",
                "apx_python_tasks{interpreter=0,worker=7}", "apx_python_gc_collections_total{generation=0,interpreter=0,worker=7}",
                "apx_python_gc_pause_seconds_total{generation=2,interpreter=0,worker=7}");
    }

    @Test
    void http2StreamsCountInTheSameSeriesAsHttp11Requests() throws Exception {
        Map<String, Double> before = scrape(metricsPort, s -> true);
        // h2load: 2 connections with prior knowledge, 30 GETs as streams, up to 5 at once per connection
        Process h2load = new ProcessBuilder("h2load", "-n", "30", "-c", "2", "-m", "5", app("/").toString())
                .redirectErrorStream(true).start();
        String report = new String(h2load.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(h2load.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(report).as(report).contains("30 succeeded", "status codes: 30 2xx");
        for (String path : List.of("/echo", "/missing")) { // one connection each
            Process curl = new ProcessBuilder("curl", "--silent", "--http2-prior-knowledge", "--data", "x".repeat(500), app(path).toString())
                    .redirectErrorStream(true).start();
            assertThat(new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(path.equals("/echo") ? "x".repeat(500) : "nope");
            assertThat(curl.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        for (int i = 0; i < 2; i++) { // HTTP/1.1 beside them, a connection each (the cleartext port reads its first bytes first)
            Process curl = new ProcessBuilder("curl", "--silent", "--http1.1", app("/").toString()).redirectErrorStream(true).start();
            assertThat(new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("ok");
            assertThat(curl.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }

        Map<String, Double> after = scrape(metricsPort, s -> delta(s, before, "apx_bridge_hops_count{interpreter=0,worker=7}") >= 34);
        assertThat(delta(after, before, "apx_http_requests_total{method=GET,status=2xx,worker=7}")).as("30 over h2, 2 over HTTP/1.1")
                .isEqualTo(32);
        assertThat(delta(after, before, "apx_http_requests_total{method=POST,status=2xx,worker=7}")).as("curl --data").isEqualTo(1);
        assertThat(delta(after, before, "apx_http_requests_total{method=POST,status=4xx,worker=7}")).as("curl's /missing").isEqualTo(1);
        assertThat(delta(after, before, "apx_http_request_duration_seconds_count{worker=7}")).isEqualTo(34);
        assertThat(delta(after, before, "apx_http_request_body_bytes_total{worker=7}")).isEqualTo(500 * 2);
        assertThat(delta(after, before, "apx_http_response_body_bytes_total{worker=7}")).isEqualTo(32 * 2 + 500 + 4);
        assertThat(delta(after, before, "apx_http_connections_total{worker=7}")).as("h2load's two, curl's four").isEqualTo(6);
        assertThat(after.get("apx_http_connections_open{worker=7}")).as("HTTP/1.1 and h2 connections, each opened before it closed")
                .isGreaterThanOrEqualTo(0);
        assertThat(after.get("apx_http_requests_in_flight{worker=7}")).isZero();
    }

    @Test
    void everySeriesCarriesTheWorkerLabelAndPythonAndJvmSeriesAreThere() throws Exception {
        Map<String, Double> samples = scrape(metricsPort,
                s -> s.getOrDefault("apx_python_gil_wait_seconds_count{interpreter=0,thread=probe,worker=7}", 0.0) > 0
                        && s.getOrDefault("apx_python_loop_lag_seconds_count{interpreter=0,worker=7}", 0.0) > 0);

        assertThat(samples.keySet()).allSatisfy(key -> assertThat(key).contains("worker=7"));
        assertThat(samples.keySet()).as("one runtime: its series as interpreter=0")
                .filteredOn(key -> key.startsWith("apx_bridge_") || key.startsWith("apx_python_")).isNotEmpty()
                .allSatisfy(key -> assertThat(key).contains("interpreter=0,"));
        assertThat(samples.keySet()).anyMatch(key -> key.startsWith("jvm_memory_used_bytes{"))
                .anyMatch(key -> key.startsWith("jvm_threads_current{"))
                .anyMatch(key -> key.startsWith("jvm_gc_collection_seconds_count{"));
    }

    @Test
    void theAppsOwnMetricsRouteIsUntouched() throws Exception {
        HttpResponse<String> response = get("/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("the app's own metrics");
    }

    @Test
    void openMetricsWhenTheScraperAsksForIt() throws Exception {
        HttpResponse<String> open = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                .header("Accept", "application/openmetrics-text; version=1.0.0; charset=utf-8").build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> text = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                .header("Accept", "text/plain").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(open.headers().firstValue("content-type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/openmetrics-text"));
        assertThat(open.body()).endsWith("# EOF\n");
        assertThat(parse(open.body(), "openmetrics")).containsKey("apx_http_requests_total{method=GET,status=2xx,worker=7}");
        assertThat(text.headers().firstValue("content-type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
        assertThat(parse(text.body(), "text")).containsKey("apx_bridge_hops_count{interpreter=0,worker=7}");
    }

    @Test
    void webSocketSessionsAndMessages() throws Exception {
        Map<String, Double> before = scrape(metricsPort, s -> true);
        LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
        WebSocket ws = CLIENT.newWebSocketBuilder().buildAsync(URI.create("ws://127.0.0.1:" + apx.port + "/ws"), new WebSocket.Listener() {
            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                received.add(data.toString());
                webSocket.request(1);
                return null;
            }
        }).get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            ws.sendText("m" + i, true).get(10, TimeUnit.SECONDS);
            assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("m" + i);
        }
        Map<String, Double> open = scrape(metricsPort, s -> delta(s, before, "apx_websocket_sessions_total{worker=7}") >= 1);

        assertThat(delta(open, before, "apx_websocket_sessions_total{worker=7}")).isEqualTo(1);
        assertThat(open.get("apx_websocket_sessions_open{worker=7}")).isEqualTo(1);
        assertThat(delta(open, before, "apx_websocket_messages_total{direction=in,worker=7}")).isEqualTo(3);
        assertThat(delta(open, before, "apx_websocket_messages_total{direction=out,worker=7}")).isEqualTo(3);
        assertThat(delta(open, before, "apx_http_requests_total{method=GET,status=1xx,worker=7}")).as("the 101").isEqualTo(1);

        ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(10, TimeUnit.SECONDS);
        Map<String, Double> closed = scrape(metricsPort, s -> s.get("apx_websocket_sessions_open{worker=7}") == 0);
        assertThat(closed.get("apx_websocket_sessions_open{worker=7}")).isZero();
    }

    /** --interpreters 2: each runtime's series as its own child; the connections held open at once go one to each. */
    @Test
    void everyRuntimeHasItsOwnChildrenAndTheyAddUpToTheRequestsSent(@TempDir Path tmp) throws Exception {
        int port = freePort();
        try (ApxProcess server = ApxProcess.start(tmp, Map.of(), "--interpreters", "2", "--metrics", "--metrics-port", String.valueOf(port),
                "--warmup", "0", "--no-access-log", "apxtest.metrics_app:app")) {
            server.awaitStderr("Serving in 2 runtimes", 60); // the second joins once it has imported the app
            Map<String, Double> before = scrape(port, s -> s.containsKey("apx_bridge_coroutines_total{interpreter=1}"));
            int perConnection = 5;
            sendOnTwoConnectionsAtOnce(server.port, "/", perConnection);
            int sent = 2 * perConnection;

            Map<String, Double> after = scrape(port, s -> delta(s, before, "apx_bridge_hops_count{interpreter=0}")
                    + delta(s, before, "apx_bridge_hops_count{interpreter=1}") >= sent
                    && s.getOrDefault("apx_python_gil_wait_seconds_count{interpreter=1,thread=probe}", 0.0) > 0);
            double first = delta(after, before, "apx_bridge_coroutines_total{interpreter=0}");
            double second = delta(after, before, "apx_bridge_coroutines_total{interpreter=1}");
            assertThat(first + second).as("the requests sent, over both runtimes: %s", after).isGreaterThanOrEqualTo(sent);
            assertThat(first).as("each connection on a runtime of its own").isEqualTo(perConnection);
            assertThat(second).isEqualTo(perConnection);
            assertThat(delta(after, before, "apx_bridge_hops_count{interpreter=0}") + delta(after, before, "apx_bridge_hops_count{interpreter=1}"))
                    .as("one per coroutine that ended").isEqualTo(sent);
            assertThat(after).containsKeys("apx_bridge_coroutines_in_flight{interpreter=0}", "apx_bridge_coroutines_in_flight{interpreter=1}",
                    "apx_python_tasks{interpreter=0}", "apx_python_tasks{interpreter=1}",
                    "apx_python_gc_collections_total{generation=2,interpreter=0}", "apx_python_gc_collections_total{generation=2,interpreter=1}",
                    "apx_python_loop_lag_seconds_count{interpreter=0}", "apx_python_loop_lag_seconds_count{interpreter=1}")
                    .doesNotContainKey("apx_bridge_coroutines_total{interpreter=2}");
            assertThat(after.keySet()).filteredOn(key -> key.startsWith("apx_bridge_") || key.startsWith("apx_python_"))
                    .allSatisfy(key -> assertThat(key).containsPattern("interpreter=[01]\\b"));
        }
    }

    /**
     * A WSGI app has no bridge and no loop: each runtime's GIL waits (its blocking threads' and the
     * probe's) and its GC counts, as children of their own.
     */
    @Test
    void aWsgiAppsRuntimesHaveTheirGilAndGcSeries(@TempDir Path tmp) throws Exception {
        int port = freePort();
        // one blocking thread per runtime: a thread's first entry into a runtime makes its thread state and is not timed, its next ones are
        try (ApxProcess server = ApxProcess.start(tmp, Map.of(), "--interface", "wsgi", "--blocking-threads", "1", "--interpreters", "2", "--metrics",
                "--metrics-port", String.valueOf(port), "--warmup", "0", "--no-access-log", "apxtest.wsgi_apps:app")) {
            server.awaitStderr("Serving in 2 runtimes", 60);
            sendOnTwoConnectionsAtOnce(server.port, "/echo", 3);
            Map<String, Double> samples = scrape(port, s -> s.getOrDefault("apx_python_gil_wait_seconds_count{interpreter=0,thread=probe}", 0.0) > 0
                    && s.getOrDefault("apx_python_gil_wait_seconds_count{interpreter=1,thread=probe}", 0.0) > 0);

            for (String slot : List.of("0", "1")) {
                assertThat(samples.get("apx_python_gil_wait_seconds_count{interpreter=" + slot + ",thread=probe}")).as(slot).isPositive();
                assertThat(samples.get("apx_python_gil_wait_seconds_count{interpreter=" + slot + ",thread=server}"))
                        .as("runtime %s's blocking thread took its GIL", slot).isPositive();
                assertThat(samples).containsKeys("apx_python_gc_collections_total{generation=0,interpreter=" + slot + "}",
                        "apx_python_gc_pause_seconds_total{generation=2,interpreter=" + slot + "}");
            }
            assertThat(samples.keySet()).noneMatch(key -> key.startsWith("apx_bridge_") || key.startsWith("apx_python_loop_")
                    || key.startsWith("apx_python_tasks"));
        }
    }

    /**
     * SIGHUP to a --workers supervisor reloads each worker into fresh runtimes: slot i keeps its
     * label, its counters go on from the replaced runtime's counts, and the supervisor's endpoint
     * shows every worker's runtimes by both labels. (Which worker accepts a connection is the
     * kernel's choice: the requests are counted over all of them.)
     */
    @Test
    void aReloadKeepsEachSlotsCountersGoingThroughTheSupervisorsEndpoint(@TempDir Path tmp) throws Exception {
        int port = freePort();
        try (ApxProcess server = ApxProcess.start(tmp, Map.of(), "--workers", "2", "--interpreters", "2", "--metrics", "--metrics-port",
                String.valueOf(port), "--warmup", "0", "--no-access-log", "apxtest.metrics_app:app")) {
            server.awaitStderr("Serving in 2 runtimes", 2, 60); // in each worker
            sendOnTwoConnectionsAtOnce(server.port, "/", 3);
            Predicate<Map<String, Double>> bothWorkers = s -> s.getOrDefault("apx_supervisor_worker_scrape_ok{worker=0}", 0.0) == 1
                    && s.getOrDefault("apx_supervisor_worker_scrape_ok{worker=1}", 0.0) == 1;
            Map<String, Double> before = scrape(port, bothWorkers.and(s -> sum(s, "apx_bridge_hops_count{") >= 6));
            List<String> slots = new ArrayList<>();
            for (String worker : List.of("0", "1")) {
                for (String interpreter : List.of("0", "1")) {
                    slots.add("{interpreter=" + interpreter + ",worker=" + worker + "}");
                    slots.add("{interpreter=" + interpreter + ",thread=probe,worker=" + worker + "}");
                }
            }
            List<String> counters = new ArrayList<>();
            for (String series : List.of("apx_bridge_coroutines_total", "apx_bridge_hops_count", "apx_python_gil_wait_seconds_count")) {
                slots.stream().filter(labels -> labels.contains("thread") == series.contains("gil")).forEach(labels -> counters.add(series + labels));
            }
            assertThat(before).as("every worker's runtimes by both labels").containsKeys(counters.toArray(String[]::new));

            WorkersIT.signal(server, "HUP");
            server.awaitStderr("Reloaded in ", 2, 60);
            server.awaitStderr("Application startup complete.", 8, 60); // lifespan startup in each fresh runtime
            Map<String, Double> reloaded = scrape(port, bothWorkers.and(s -> s.getOrDefault("apx_supervisor_worker_restarts_total{reason=reload}", 0.0) == 2));
            assertThat(reloaded.get("apx_supervisor_worker_restarts_total{reason=reload}")).isEqualTo(2);
            for (String key : counters) {
                assertThat(reloaded.get(key)).as("%s never goes back across the reload", key).isGreaterThanOrEqualTo(before.get(key));
            }

            sendOnTwoConnectionsAtOnce(server.port, "/", 3); // to the fresh runtimes
            Map<String, Double> after = scrape(port, bothWorkers.and(s -> sum(s, "apx_bridge_hops_count{") - sum(reloaded, "apx_bridge_hops_count{") >= 6));
            assertThat(sum(after, "apx_bridge_coroutines_total{") - sum(reloaded, "apx_bridge_coroutines_total{"))
                    .as("the fresh runtimes' requests count in the same slots: %s", after).isGreaterThanOrEqualTo(6);
            assertThat(sum(after, "apx_bridge_hops_count{") - sum(reloaded, "apx_bridge_hops_count{"))
                    .as("the 6 requests, and the replaced runtimes' lifespan coroutines that end as they retire (one each)").isBetween(6.0, 10.0);
            assertThat(after.keySet()).filteredOn(key -> key.startsWith("apx_bridge_coroutines_total{")).hasSize(4);
            server.process.destroy();
            assertThat(server.awaitExit(60)).isZero();
            server.assertNoJavaStackTrace();
        }
    }

    @Test
    void flagsFromTheEnvironmentBindTheEndpointWhereTheySay(@TempDir Path tmp) throws Exception {
        int port = freePort();
        // 127.0.0.2 is loopback too on Linux: the endpoint answers there and not on 127.0.0.1
        try (ApxProcess server = ApxProcess.start(tmp, Map.of("APX_METRICS", "true", "APX_METRICS_HOST", "127.0.0.2",
                "APX_METRICS_PORT", String.valueOf(port)), "apxtest.metrics_app:app")) {
            assertThat(server.stderr()).contains("Metrics on http://127.0.0.2:" + port + "/metrics");
            assertThat(scrape("127.0.0.2", port, s -> true)).containsKey("apx_http_connections_open{}");
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void noEndpointWithoutTheFlag(@TempDir Path tmp) throws Exception {
        int port = freePort();
        try (ApxProcess server = ApxProcess.start(tmp, Map.of(), "--metrics-port", String.valueOf(port), "apxtest.metrics_app:app")) {
            assertThat(server.stderr()).doesNotContain("Metrics on");
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void aTakenMetricsPortIsOneErrorLineAndExitOne(@TempDir Path tmp) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                    "--enable-native-access=ALL-UNNAMED", "-jar", Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath().toString(),
                    "--python", PYTHON.toString(), "--metrics", "--metrics-port", String.valueOf(taken.getLocalPort()), "apxtest.metrics_app:app"));
            Process process = new ProcessBuilder(command).directory(tmp.toFile()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

            assertThat(process.exitValue()).as(output).isEqualTo(1);
            assertThat(output).containsPattern("(?m)^apx: error: cannot serve metrics on 127\\.0\\.0\\.1:" + taken.getLocalPort() + ": ")
                    .doesNotContain("Started server process");
        }
    }

    // ---- helpers

    private static URI app(String path) {
        return URI.create("http://127.0.0.1:" + apx.port + path);
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return CLIENT.send(HttpRequest.newBuilder(app(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String rawRequest(String bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", apx.port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(bytes.getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * {@code count} keep-alive GETs of {@code path} (answered 200) on each of two connections, both open from the first request on:
     * the server gives a new connection to the runtime with the fewest open, so one goes to each.
     */
    private static void sendOnTwoConnectionsAtOnce(int port, String path, int count) throws Exception {
        List<HttpClient> clients = List.of(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(),
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
        for (int i = 0; i < count; i++) {
            for (HttpClient client : clients) {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
            }
        }
        clients.forEach(HttpClient::close);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** The sum of every sample whose key starts with {@code prefix} (a series over all its children). */
    private static double sum(Map<String, Double> samples, String prefix) {
        return samples.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToDouble(Map.Entry::getValue).sum();
    }

    private static double delta(Map<String, Double> after, Map<String, Double> before, String key) {
        return after.getOrDefault(key, 0.0) - before.getOrDefault(key, 0.0);
    }

    private static Map<String, Double> scrape(int port, Predicate<Map<String, Double>> until) throws Exception {
        return scrape("127.0.0.1", port, until);
    }

    private static Map<String, Double> scrape(String host, int port, Predicate<Map<String, Double>> until) throws Exception {
        return PrometheusScrape.scrape(host, port, until);
    }

    private static Map<String, Double> parse(String exposition, String format) throws Exception {
        return PrometheusScrape.parse(exposition, format);
    }
}
