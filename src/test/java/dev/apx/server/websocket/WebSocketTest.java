package dev.apx.server.websocket;

import dev.apx.server.TestServer;
import dev.apx.server.api.WebSocketConfig;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WebSocket suite ({@link WsSuite}: the websockets client library and raw sockets) against
 * apx serving the raw ASGI apps of {@code apxtest.ws_apps}, each result checked, then the same
 * suite against Uvicorn {@code --ws websockets}, which must agree except where {@link #DIFFERENT}
 * says why. Runs in the 3.11 fork only: the client library and Uvicorn are installed there, and
 * the suite (1,000 connections among it) is too slow to repeat per Python; the protocol code under
 * test is the same Java for all three ({@link WebSocketUpgradeTest} runs on each).
 */
class WebSocketTest {
    /** The checks run with the default pings (LOADED_CHECKS in ws_suite.py). */
    private static final String[] LOADED = {"slow_reader", "concurrent"};
    /** Checks whose results differ from Uvicorn's on purpose, and apx's result for them. */
    private static final Map<String, String> DIFFERENT = Map.of(
            // After the app's websocket.close, apx's receive() repeats the app's own code, as Uvicorn's
            // wsproto implementation does; its websockets implementation answers 1005 instead.
            "server_close", "[4001, \"bye\", {\"after_close\": {\"code\": 4001, \"reason\": \"bye\", \"type\": \"websocket.disconnect\"}}]",
            // A fragmented message over --ws-max-size: apx closes with 1009 (message too big), the
            // websockets library with 1002 (protocol error) for this client.
            "max_size_fragmented", "[[], 1009]");
    private static final Map<String, String> results = new HashMap<>();

    @BeforeAll
    static void runSuite() throws Exception {
        try (TestServer apx = TestServer.withWebSockets("apxtest.ws_apps", "app", WsSuite.config())) {
            results.putAll(WsSuite.run(apx.address()));
        }
        try (TestServer apx = TestServer.withWebSockets("apxtest.ws_apps", "app", WebSocketConfig.defaults())) {
            results.putAll(WsSuite.run(apx.address(), LOADED));
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
        expect("rsv1_without_deflate", "[[], 1002]");
        expect("orphan_continuation", "[[], 1002]");
        expect("max_size", "[2097152, 1009]");
        expect("max_size_fragmented", "[[], 1009]");
    }

    /** RFC 6455's MUSTs that ws_suite.py's {@code musts} counts, beyond the faults above (its MUSTS table has the sections). */
    @Test
    void keepsRfc6455sMustsForCloseFramesControlFramesFragmentsAndUtf8() {
        expect("close_invalid_codes", "[1002, 1002, 1002, 1002, 1002, 1002, 1002, 1002, 1002, 1002]");
        expect("close_valid_codes_echoed", "[1000, 1001, 1002, 1003, 1007, 1011, 3000, 4999]");
        expect("close_empty", "[[], 1005]");
        expect("close_one_byte", "[[], 1002]");
        expect("close_reason_invalid_utf8", "[[], 1007]");
        expect("close_reason_utf8", "[[], 1000]");
        expect("ping_too_long", "[[], 1002]");
        expect("ping_fragmented", "[[], 1002]");
        expect("close_fragmented", "[[], 1002]");
        expect("pong_unsolicited", "[1, \"after pong\", 1000]");
        expect("text_inside_fragmented_message", "[[], 1002]");
        expect("empty_fragments", "[1, \"abc\"]");
        expect("utf8_split_across_fragments", "[1, \"caf\\u00e9\"]");
        expect("utf8_invalid_forms", "[1007, 1007, 1007, 1007]");
        expect("reserved_bits", "[1002, 1002]");
        expect("reserved_control_opcode", "[[], 1002]");
        expect("handshake_bad_key", "[400, 400, 400]");
    }

    @Test
    void pingsKeepAliveAndAnUnansweredPingCloses() {
        expect("pings_answered", "\"still here\"");
        expect("ping_timeout", "[true, 1011]");
    }

    @Test
    void aClientThatStopsReadingMakesSendWaitThenRaise() {
        expect("send_until_gone", "{\"error\": \"ClientDisconnected\", \"oserror\": true}");
    }

    @Test
    void aSlowAppGetsEveryMessageAndAThousandConnectionsEcho() {
        expect("slow_reader", "{\"received\": 200}");
        expect("concurrent", "[1000, []]");
    }

    @Test
    void starletteAndFastapiEndpoints() throws Exception {
        try (TestServer frameworks = TestServer.withWebSockets("apxtest.ws_frameworks", "app", WebSocketConfig.defaults())) {
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

    @Test
    void agreesWithUvicorn() throws Exception {
        Map<String, String> fromUvicorn = uvicorn(WsSuite.FLAGS);
        fromUvicorn.putAll(uvicorn(List.of()));
        assertThat(results.keySet()).isEqualTo(fromUvicorn.keySet());
        Map<String, String> apxSame = new HashMap<>(results);
        for (Map.Entry<String, String> expected : DIFFERENT.entrySet()) {
            assertThat(apxSame.remove(expected.getKey())).as(expected.getKey()).isEqualTo(expected.getValue());
            fromUvicorn.remove(expected.getKey());
        }
        assertThat(apxSame).isEqualTo(fromUvicorn);
    }

    /** The suite against Uvicorn with {@code flags}: all CHECKS with {@link WsSuite#FLAGS}, else {@link #LOADED}. */
    private static Map<String, String> uvicorn(List<String> flags) throws Exception {
        WsSuite.Uvicorn uvicorn = WsSuite.uvicorn("apxtest.ws_apps:app", flags);
        try {
            String address = "127.0.0.1:" + uvicorn.port();
            return new HashMap<>(flags.isEmpty() ? WsSuite.run(address, LOADED) : WsSuite.run(address));
        } finally {
            uvicorn.process().destroy();
            uvicorn.process().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
