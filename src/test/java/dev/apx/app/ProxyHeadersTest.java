package dev.apx.app;

import dev.apx.asgi.AsgiConfig;
import dev.apx.server.RawHttp;
import dev.apx.server.TestServer;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --proxy-headers} with {@code --forwarded-allow-ips}: what the app sees as scheme and client
 * when the peer (always 127.0.0.1 here) is or is not a trusted proxy. Uvicorn's rules; the
 * differential test compares the trusted case with Uvicorn itself.
 */
class ProxyHeadersTest {
    private static final String FORWARDED = "X-Forwarded-For: 203.0.113.7, 10.1.2.3\r\nX-Forwarded-Proto: https\r\n";

    private static String client(TestServer server, String headers) {
        String response = RawHttp.exchange(server.port(), "GET /client HTTP/1.1\r\nHost: t\r\n" + headers + "Connection: close\r\n\r\n");
        assertThat(response).startsWith("HTTP/1.1 200 OK");
        return response.substring(response.indexOf("\r\n\r\n") + 4);
    }

    private static TestServer serve(String allowIps, boolean proxyHeaders) {
        return new TestServer("apxtest.http_apps", "app", ServerConfig.defaults().withAccessLog(false),
                new AsgiConfig(new AppConfig("", proxyHeaders, TrustedHosts.parse(allowIps))));
    }

    @Test
    void trustedProxyChainNamesTheFirstUntrustedClient() throws Exception {
        try (TestServer server = serve("127.0.0.1, 10.0.0.0/8", true)) {
            assertThat(client(server, FORWARDED)).isEqualTo("https 203.0.113.7:0");
            assertThat(client(server, "X-Forwarded-For: 198.51.100.1:4711\r\n")).isEqualTo("http 198.51.100.1:4711");
            assertThat(client(server, "X-Forwarded-For: [2001:db8::1]:443\r\nX-Forwarded-Proto: wss\r\n")).isEqualTo("wss 2001:db8::1:443");
            assertThat(client(server, "X-Forwarded-For: 10.9.9.9, 10.1.1.1\r\n"))
                    .as("every hop trusted: the first one is the client").isEqualTo("http 10.9.9.9:0");
            assertThat(client(server, "X-Forwarded-Proto: gopher\r\n")).as("unknown scheme ignored").startsWith("http 127.0.0.1:");
            assertThat(client(server, "X-Forwarded-For: \r\n")).as("empty header ignored").startsWith("http 127.0.0.1:");
        }
    }

    @Test
    void untrustedPeerIsNotBelieved() throws Exception {
        try (TestServer server = serve("192.0.2.1", true)) {
            assertThat(client(server, FORWARDED)).matches("http 127\\.0\\.0\\.1:\\d+").doesNotEndWith(":0");
        }
    }

    @Test
    void everyPeerIsTrustedWithAStar() throws Exception {
        try (TestServer server = serve("*", true)) {
            assertThat(client(server, FORWARDED)).as("with '*' the first entry is the client").isEqualTo("https 203.0.113.7:0");
        }
    }

    @Test
    void noProxyHeadersIgnoresThemEvenFromATrustedPeer() throws Exception {
        try (TestServer server = serve("127.0.0.1", false)) {
            assertThat(client(server, FORWARDED)).matches("http 127\\.0\\.0\\.1:\\d+");
        }
    }

    @Test
    void trustedHostsCompareAddressesAndNetworksAndNeverResolveNames() {
        TrustedHosts defaults = AppConfig.defaults().forwardedAllowIps();

        assertThat(defaults.contains("127.0.0.1")).isTrue();
        assertThat(defaults.contains("0:0:0:0:0:0:0:1")).as("::1 written out").isTrue();
        assertThat(defaults.contains(java.net.InetAddress.getLoopbackAddress())).isTrue();
        assertThat(defaults.contains("127.0.0.2")).isFalse();
        assertThat(defaults.contains("localhost")).as("names are never resolved").isFalse();
        assertThat(TrustedHosts.parse("10.0.0.0/8, unix:/run/proxy.sock").contains("unix:/run/proxy.sock")).isTrue();
        assertThat(TrustedHosts.parse("10.0.0.0/8").contains("11.0.0.1")).isFalse();
    }
}
