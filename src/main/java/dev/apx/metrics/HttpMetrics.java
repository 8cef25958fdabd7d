package dev.apx.metrics;

import dev.apx.server.Server;
import dev.apx.server.api.HttpObserver;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.concurrent.atomic.LongAdder;

/**
 * HTTP and WebSocket series. Every update is a lock-free add (LongAdder inside the library's
 * counters, the histogram's own striped buckets); the label children are looked up once, here, so a
 * request costs array indexing, not a map lookup. Methods beyond the standard nine count as
 * {@code other}, so a client cannot grow the label set.
 */
final class HttpMetrics implements HttpObserver {
    static final String[] METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE", "other"};
    static final String[] STATUS_CLASSES = {"other", "1xx", "2xx", "3xx", "4xx", "5xx"};
    /** Seconds: plaintext answers in tens of microseconds, a slow app in seconds. */
    static final double[] DURATION_BUCKETS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
            1, 2.5, 5, 10, 30};

    private final Counter requestCounter;
    /** Label children made on first use (a series appears once it counts something), then read without a map lookup. */
    private final CounterDataPoint[][] requests = new CounterDataPoint[METHODS.length][STATUS_CLASSES.length];
    private final Histogram duration;
    private final Counter requestBytes;
    private final Counter responseBytes;
    private final Counter rejected;
    private final Counter connections;
    private final LongAdder connectionsOpen = new LongAdder();
    private final Counter webSockets;
    private final LongAdder webSocketsOpen = new LongAdder();
    private final CounterDataPoint messagesIn;
    private final CounterDataPoint messagesOut;
    private final PrometheusRegistry registry;
    private final Labels labels;

    HttpMetrics(PrometheusRegistry registry, Labels labels) {
        this.registry = registry;
        this.labels = labels;
        requestCounter = Counter.builder().name("apx_http_requests")
                .help("HTTP responses sent, by request method and status class").labelNames("method", "status")
                .constLabels(labels).withoutExemplars().register(registry);
        duration = Histogram.builder().name("apx_http_request_duration_seconds")
                .help("From the request head read to the response's last byte handed to the socket")
                .classicOnly().classicUpperBounds(DURATION_BUCKETS).constLabels(labels).withoutExemplars().register(registry);
        requestBytes = counter("apx_http_request_body_bytes", "Request body bytes received");
        responseBytes = counter("apx_http_response_body_bytes", "Response body bytes sent");
        rejected = Counter.builder().name("apx_http_rejected_requests")
                .help("Requests the server answered itself without the app (the status says why), by reason")
                .labelNames("reason").constLabels(labels).withoutExemplars().register(registry);
        connections = counter("apx_http_connections", "Connections accepted");
        gauge("apx_http_connections_open", "Connections open now", connectionsOpen);
        webSockets = counter("apx_websocket_sessions", "WebSocket sessions accepted (101 sent)");
        gauge("apx_websocket_sessions_open", "WebSocket sessions open now", webSocketsOpen);
        Counter messages = Counter.builder().name("apx_websocket_messages")
                .help("Whole WebSocket messages (not frames), by direction").labelNames("direction")
                .constLabels(labels).withoutExemplars().register(registry);
        messagesIn = messages.labelValues("in");
        messagesOut = messages.labelValues("out");
    }

    private Counter counter(String name, String help) {
        return Counter.builder().name(name).help(help).constLabels(labels).withoutExemplars().register(registry);
    }

    private void gauge(String name, String help, LongAdder value) {
        GaugeWithCallback.builder().name(name).help(help).constLabels(labels)
                .callback(callback -> callback.call(value.sum())).register(registry);
    }

    void watch(Server server) {
        GaugeWithCallback.builder().name("apx_http_requests_in_flight")
                .help("Requests whose response is not complete (WebSocket sessions included)").constLabels(labels)
                .callback(callback -> callback.call(server.inFlight())).register(registry);
    }

    @Override
    public void connectionOpened() {
        connections.inc();
        connectionsOpen.increment();
    }

    @Override
    public void connectionClosed() {
        connectionsOpen.decrement();
    }

    @Override
    public void response(String method, int status, long nanos, long requestBodyBytes, long responseBodyBytes) {
        int statusClass = status >= 100 && status < 600 ? status / 100 : 0;
        int m = methodIndex(method);
        CounterDataPoint count = requests[m][statusClass];
        if (count == null) { // a race makes the same child twice: labelValues returns the one registered
            count = requestCounter.labelValues(METHODS[m], STATUS_CLASSES[statusClass]);
            requests[m][statusClass] = count;
        }
        count.inc();
        duration.observe(nanos / 1e9);
        if (requestBodyBytes > 0) {
            requestBytes.inc(requestBodyBytes);
        }
        if (responseBodyBytes > 0) {
            responseBytes.inc(responseBodyBytes);
        }
    }

    static int methodIndex(String method) {
        return switch (method) {
            case "GET" -> 0;
            case "HEAD" -> 1;
            case "POST" -> 2;
            case "PUT" -> 3;
            case "DELETE" -> 4;
            case "PATCH" -> 5;
            case "OPTIONS" -> 6;
            case "CONNECT" -> 7;
            case "TRACE" -> 8;
            default -> 9;
        };
    }

    @Override
    public void refused(int status) {
        rejected.labelValues(reason(status)).inc(); // rare: a map lookup is fine here
    }

    /** What a refusal's status means (docs/metrics.md). */
    static String reason(int status) {
        return switch (status) {
            case 503 -> "concurrency_limit";
            case 413 -> "body_too_large";
            case 414 -> "request_line_too_long";
            case 431 -> "headers_too_large";
            case 505 -> "http_version";
            case 400 -> "invalid_request";
            default -> "other";
        };
    }

    @Override
    public void webSocketOpened() {
        webSockets.inc();
        webSocketsOpen.increment();
    }

    @Override
    public void webSocketClosed() {
        webSocketsOpen.decrement();
    }

    @Override
    public void webSocketMessageIn() {
        messagesIn.inc();
    }

    @Override
    public void webSocketMessageOut() {
        messagesOut.inc();
    }
}
