package dev.apx.app;

import dev.apx.server.api.RequestHead;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Uvicorn's {@code --proxy-headers} (its ProxyHeadersMiddleware): when the peer is trusted,
 * {@code x-forwarded-proto} (http, https, ws or wss) sets the scheme, and the last untrusted entry of
 * {@code x-forwarded-for} (all such headers joined; the first entry when every one is trusted)
 * becomes the client, with its port when it carries one, else port 0.
 */
public final class ProxyHeaders {
    private static final Set<String> SCHEMES = Set.of("http", "https", "ws", "wss");

    private ProxyHeaders() {
    }

    /** The scheme and the client ({host, port}) a request comes from. */
    public record Origin(String scheme, Object[] client) {
    }

    /** The origin a trusted proxy names in {@code head}'s headers, or null when none does (the ASGI scope and the WSGI environ). */
    public static Origin forwarded(Origin direct, RequestHead head, AppConfig config) {
        TrustedHosts trusted = config.forwardedAllowIps();
        if (!config.proxyHeaders() || head.client() == null || !trusted.contains(head.client().getAddress())) {
            return null;
        }
        String proto = null;
        List<String> forwardedFor = new ArrayList<>();
        for (String[] header : head.headers()) {
            if (header[0].equalsIgnoreCase("x-forwarded-proto")) {
                proto = header[1].strip();
            } else if (header[0].equalsIgnoreCase("x-forwarded-for")) {
                forwardedFor.add(header[1]);
            }
        }
        String scheme = proto != null && SCHEMES.contains(proto) ? proto : direct.scheme();
        if (forwardedFor.isEmpty()) {
            return new Origin(scheme, direct.client());
        }
        Object[] client = clientOf(String.join(", ", forwardedFor).split(",", -1), trusted);
        if (((String) client[0]).isEmpty()) {
            client = direct.client(); // an empty header names nobody
        }
        return new Origin(scheme, client);
    }

    private static Object[] clientOf(String[] hosts, TrustedHosts trusted) {
        if (!trusted.everyone()) {
            for (int i = hosts.length - 1; i >= 0; i--) { // each proxy appends: the nearest is last
                Object[] host = hostAndPort(hosts[i].strip());
                if (!trusted.contains((String) host[0])) {
                    return host;
                }
            }
        }
        return hostAndPort(hosts[0].strip());
    }

    /** "1.2.3.4:80", "[::1]:80" or a bare host; anything malformed is kept whole with port 0. */
    private static Object[] hostAndPort(String value) {
        if (value.startsWith("[")) {
            int end = value.indexOf(']');
            if (end < 0) {
                return new Object[]{value, 0L};
            }
            String rest = value.substring(end + 1);
            if (rest.isEmpty()) {
                return new Object[]{value.substring(1, end), 0L};
            }
            if (!rest.startsWith(":")) {
                return new Object[]{value, 0L};
            }
            Long port = port(rest.substring(1));
            return new Object[]{value.substring(1, end), port == null ? 0L : port};
        }
        int colon = value.indexOf(':');
        if (colon >= 0 && colon == value.lastIndexOf(':')) {
            Long port = port(value.substring(colon + 1));
            return port == null ? new Object[]{value, 0L} : new Object[]{value.substring(0, colon), port};
        }
        return new Object[]{value, 0L};
    }

    private static Long port(String text) {
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
