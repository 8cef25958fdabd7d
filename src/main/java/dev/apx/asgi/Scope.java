package dev.apx.asgi;

import dev.apx.server.RequestHead;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Builds the ASGI 2.4 HTTP scope (as Java values; converted when the app is called). */
final class Scope {
    static final Map<String, Object> ASGI = ordered("version", "3.0", "spec_version", "2.4");
    static final Map<String, Object> EXTENSIONS = Map.of(
            "http.response.trailers", Map.of(),
            "http.response.pathsend", Map.of());

    private Scope() {
    }

    private static Map<String, Object> ordered(String k1, Object v1, String k2, Object v2) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(k1, v1);
        map.put(k2, v2);
        return java.util.Collections.unmodifiableMap(map);
    }

    static Map<String, Object> http(RequestHead head, AsgiConfig config) {
        String uri = head.uri();
        int question = uri.indexOf('?');
        String rawPath = question < 0 ? uri : uri.substring(0, question);
        String query = question < 0 ? "" : uri.substring(question + 1);
        if (rawPath.startsWith("http://") || rawPath.startsWith("https://")) { // absolute-form
            int slash = rawPath.indexOf('/', rawPath.indexOf("//") + 2);
            rawPath = slash < 0 ? "/" : rawPath.substring(slash);
        }
        List<Object[]> headers = new ArrayList<>(head.headers().size());
        for (String[] header : head.headers()) {
            headers.add(new Object[]{latin1(header[0].toLowerCase(Locale.ROOT)), latin1(header[1])});
        }
        Map<String, Object> scope = new LinkedHashMap<>();
        scope.put("type", "http");
        scope.put("asgi", ASGI);
        scope.put("http_version", head.httpVersion().substring(5));
        scope.put("method", head.method());
        scope.put("scheme", "http");
        scope.put("path", config.rootPath() + percentDecode(rawPath));
        scope.put("raw_path", latin1(rawPath));
        scope.put("query_string", latin1(query));
        scope.put("root_path", config.rootPath());
        scope.put("headers", headers);
        scope.put("client", address(head.client()));
        scope.put("server", head.socketPath() != null ? new Object[]{head.socketPath(), null} : address(head.server()));
        scope.put("extensions", EXTENSIONS);
        return scope;
    }

    static Object[] address(InetSocketAddress address) {
        return address == null ? null : new Object[]{address.getAddress().getHostAddress(), (long) address.getPort()};
    }

    static byte[] latin1(String value) {
        return value.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** %XX decoding as UTF-8 (invalid sequences become U+FFFD), '+' kept: urllib.parse.unquote. */
    static String percentDecode(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' && i + 2 < raw.length()
                    && Character.digit(raw.charAt(i + 1), 16) >= 0 && Character.digit(raw.charAt(i + 2), 16) >= 0) {
                bytes.write(Integer.parseInt(raw, i + 1, i + 3, 16));
                i += 2;
            } else {
                byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(encoded, 0, encoded.length);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
