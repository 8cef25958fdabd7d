package dev.apx.server;

import dev.apx.python.TestPython;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The WebSocket suite ({@link WsSuite}: the websockets client library and raw sockets) against
 * apx serving the raw ASGI apps of {@code apxtest.ws_apps}, each result checked. Runs in the 3.11
 * fork only: the client library is installed there, and the suite (1,000 connections among it)
 * is too slow to repeat per Python; the protocol code under test is the same Java for all three.
 */
class WebSocketTest {
    private static WebSocketServer apx;
    private static Map<String, String> results;

    @BeforeAll
    static void runSuite() throws Exception {
        assumeTrue(TestPython.install().minorVersion().equals("3.11"), "the websockets client is installed in the 3.11 venv only");
        apx = new WebSocketServer("apxtest.ws_apps", "app", WsSuite.config());
        results = WsSuite.run(apx.address());
    }

    @AfterAll
    static void stop() throws Exception {
        if (apx != null) {
            apx.close();
        }
    }

    private static void expect(String check, String json) {
        assertThat(results.get(check)).as(check).isEqualTo(json);
    }

    @Test
    void echoesTextAndBytesUpToOneMebibyte() {
        expect("echo_text", "\"h\\u00e9llo w\\u00f6rld\"");
        expect("echo_bytes", "true");
        expect("one_mib", "[true, true]");
        expect("fragmented_binary", "[2, true]");
    }

    @Test
    void negotiatesPermessageDeflateOnlyWhenOffered() {
        expect("deflate", "[100000, \"permessage-deflate\"]");
        expect("no_deflate", "[\"plain\", null]");
    }

    @Test
    void negotiatesSubprotocolsAndSendsAcceptHeaders() {
        expect("subprotocol", "[\"chat\", null]");
        expect("accept_headers", "\"yes\"");
    }

    @Test
    void scopeIsAsgiWebsocketSpec24() {
        expect("scope", "{\"extensions\": [\"websocket.http.response\"], \"has_method\": false, \"http_version\": \"1.1\", "
                + "\"path\": \"/scope\", \"query_string\": \"a=1\", \"raw_path\": \"/scope\", \"root_path\": \"\", "
                + "\"scheme\": \"ws\", \"spec_version\": \"2.4\", \"subprotocol\": null, \"subprotocols\": [\"one\", \"two\"], "
                + "\"type\": \"websocket\"}");
    }

    @Test
    void closeCodesGoBothWays() {
        // the app's close reaches the client; the app's next receive() repeats its own code (as Uvicorn's wsproto)
        expect("server_close", "[4001, \"bye\", {\"after_close\": {\"code\": 4001, \"reason\": \"bye\", \"type\": \"websocket.disconnect\"}}]");
        expect("client_close", "[4000, {\"code\": 4000}]");
        expect("tcp_drop", "{\"code\": 1006}");
        expect("raise_after_accept", "1006");
    }

    @Test
    void deniesBeforeAccept() {
        expect("deny", "403");
        expect("deny_response", "[401, \"no token\", \"nope, go away\"]");
        expect("raise_before_accept", "500");
    }

    @Test
    void reassemblesFragmentsAndAnswersPingsBetweenThem() {
        expect("fragmented", "[[1, \"h\\u00e9llo\"], [10, \"p1\"]]");
    }

    @Test
    void protocolFaultsCloseWithTheirCodes() {
        expect("invalid_utf8", "[[], 1007]");
        expect("invalid_utf8_fragmented", "[[], 1007]");
        expect("unmasked", "[[], 1002]");
        expect("reserved_opcode", "[[], 1002]");
        expect("orphan_continuation", "[[], 1002]");
        expect("max_size", "[2097152, 1009]");
        expect("max_size_fragmented", "[[], 1009]");
    }

    @Test
    void pingsKeepAliveAndAnUnansweredPingCloses() {
        expect("pings_answered", "\"still here\"");
        expect("ping_timeout", "[true, 1011]");
    }

    @Test
    void backpressureBothWays() {
        expect("slow_reader", "{\"received\": 200}");
        expect("send_until_gone", "{\"error\": \"ClientDisconnected\", \"oserror\": true}");
    }

    @Test
    void thousandConcurrentConnections() throws Exception {
        try (WebSocketServer defaults = new WebSocketServer("apxtest.ws_apps", "app", WebSocketConfig.defaults())) {
            assertThat(WsSuite.run(defaults.address(), "concurrent").get("concurrent")).isEqualTo("[1000, []]");
        }
    }

    @Test
    void starletteAndFastapiEndpoints() throws Exception {
        try (WebSocketServer frameworks = new WebSocketServer("apxtest.ws_frameworks", "app", WebSocketConfig.defaults())) {
            Map<String, String> seen = WsSuite.run(frameworks.address(), "starlette_echo", "starlette_json",
                    "starlette_send_until_gone", "starlette_not_found", "fastapi_item", "fastapi_invalid_path");
            assertThat(seen).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "starlette_echo", "[\"echo: hi\", \"chat\", {\"code\": 4003}]",
                    "starlette_json", "[{\"got\": {\"a\": [1, 2]}}, 4002, \"done\"]",
                    "starlette_send_until_gone", "{\"code\": 1006}", // Starlette turned ClientDisconnected into 1006
                    "starlette_not_found", "403",
                    "fastapi_item", "[{\"item_id\": 7, \"q\": \"x\", \"text\": \"hello\"}, {\"code\": 1000}]",
                    "fastapi_invalid_path", "403"));
        }
    }
}
