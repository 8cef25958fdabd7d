package dev.apx.asgi;

import dev.apx.server.RequestHead;


/**
 * Uvicorn's {@code --proxy-headers}: when the peer is trusted, {@code x-forwarded-proto} sets the
 * scheme and the last untrusted address of {@code x-forwarded-for} becomes the client.
 */
final class ProxyHeaders {
    private ProxyHeaders() {
    }

    static Scope apply(Scope scope, RequestHead head, AsgiConfig config) {
        if (!config.proxyHeaders() || head.client() == null || !trusted(config, head.client().getAddress().getHostAddress())) {
            return scope;
        }
        String scheme = scope.scheme();
        Object[] client = scope.client();
        for (String[] header : head.headers()) {
            String name = header[0];
            if (name.equalsIgnoreCase("x-forwarded-proto")) {
                String proto = header[1].strip().toLowerCase(java.util.Locale.ROOT);
                scheme = proto.equals("https") || proto.equals("wss") ? "https" : "http";
            } else if (name.equalsIgnoreCase("x-forwarded-for")) {
                String[] hosts = header[1].split(",");
                String forwarded = hosts[0].strip();
                for (int i = hosts.length - 1; i >= 0; i--) {
                    String host = hosts[i].strip();
                    if (!trusted(config, host)) {
                        forwarded = host;
                        break;
                    }
                }
                client = new Object[]{forwarded, 0L};
            }
        }
        return scope.withForwarded(scheme, client);
    }

    private static boolean trusted(AsgiConfig config, String host) {
        return config.forwardedAllowIps().contains("*") || config.forwardedAllowIps().contains(host);
    }
}
