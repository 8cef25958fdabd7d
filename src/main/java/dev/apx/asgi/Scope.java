package dev.apx.asgi;

import dev.apx.app.AppConfig;
import dev.apx.app.PercentDecoding;
import dev.apx.app.ProxyHeaders;
import dev.apx.server.api.RequestHead;
import dev.apx.server.tls.TlsSession;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The values of an ASGI 2.4 HTTP scope, computed in Java; {@code _apx._asgi.http_runner} puts them
 * into the scope dict (literal keys there are cheaper than converting a Java map).
 *
 * @param headers the lower-cased header names and values as one byte string, each name and value
 *                followed by a NUL, split in Python; or, when a value itself holds a NUL, the
 *                list of (name, value) pairs
 * @param tls     the values of the ASGI TLS extension's dict ({@code extensions["tls"]}) in {@link #TLS_KEYS}' order,
 *                or null on a plain connection: the runner makes the dict with literal keys
 */
public record Scope(String httpVersion, String method, String scheme, String path, byte[] rawPath, byte[] queryString,
             String rootPath, Object headers, Object[] client, Object[] server, Object[] tls) {
    /** The TLS extension's keys, in the order of {@link #tls}'s values (and of {@code _apx._asgi.http_runner}'s dict). */
    static final List<String> TLS_KEYS = List.of("server_cert", "client_cert_chain", "client_cert_name", "client_cert_error",
            "tls_version", "cipher_suite");

    /** This scope with the scheme and client a trusted proxy forwarded ({@code --proxy-headers}), or itself. */
    public Scope forwarded(RequestHead head, AppConfig config) {
        ProxyHeaders.Origin origin = ProxyHeaders.forwarded(new ProxyHeaders.Origin(scheme, client), head, config);
        return origin == null ? this : withForwarded(origin.scheme(), origin.client());
    }

    private Scope withForwarded(String forwardedScheme, Object[] forwardedClient) {
        return new Scope(httpVersion, method, forwardedScheme, path, rawPath, queryString, rootPath, headers, forwardedClient, server, tls);
    }

    /** The positional arguments of {@code run(handle, ...)}, after the handle. */
    public Object[] runArguments(long handle) {
        return new Object[]{handle, httpVersion, method, scheme, path, rawPath, queryString, rootPath, headers, client, server, tls};
    }

    /** The scope as a Java map, headers as (name, value) pairs: for the websocket path, which converts it whole. */
    public Map<String, Object> toMap() {
        Map<String, Object> scope = new LinkedHashMap<>();
        scope.put("type", "http");
        scope.put("asgi", Map.of("version", "3.0", "spec_version", "2.4"));
        scope.put("http_version", httpVersion);
        scope.put("method", method);
        scope.put("scheme", scheme);
        scope.put("path", path);
        scope.put("raw_path", rawPath);
        scope.put("query_string", queryString);
        scope.put("root_path", rootPath);
        scope.put("headers", headers instanceof byte[] blob ? pairs(blob) : headers);
        scope.put("client", client);
        scope.put("server", server);
        return scope;
    }

    private static List<Object[]> pairs(byte[] blob) {
        List<Object[]> pairs = new ArrayList<>();
        byte[] name = null;
        for (int start = 0, at = 0; at < blob.length; at++) {
            if (blob[at] == 0) {
                byte[] field = java.util.Arrays.copyOfRange(blob, start, at);
                if (name == null) {
                    name = field;
                } else {
                    pairs.add(new Object[]{name, field});
                    name = null;
                }
                start = at + 1;
            }
        }
        return pairs;
    }

    public static Scope http(RequestHead head, AppConfig config) {
        String uri = head.uri();
        int question = uri.indexOf('?');
        String rawPath = question < 0 ? uri : uri.substring(0, question);
        String query = question < 0 ? "" : uri.substring(question + 1);
        if (rawPath.startsWith("http://") || rawPath.startsWith("https://")) { // absolute-form
            int slash = rawPath.indexOf('/', rawPath.indexOf("//") + 2);
            rawPath = slash < 0 ? "/" : rawPath.substring(slash);
        }
        Object[] server = head.socketPath() != null ? new Object[]{head.socketPath(), null} : address(head.server());
        return new Scope(head.httpVersion().substring(5), head.method(), head.tls() != null ? "https" : "http",
                (config.pathIncludesRoot() ? "" : config.rootPath()) + PercentDecoding.decode(rawPath, StandardCharsets.UTF_8),
                latin1(rawPath), latin1(query), config.rootPath(),
                headers(head.headers()), address(head.client()), server, tlsValues(head.tls()));
    }

    /** The ASGI TLS extension's values in {@link #TLS_KEYS}' order, or null without TLS. */
    static Object[] tlsValues(TlsSession tls) {
        return tls == null ? null : new Object[]{tls.serverCert(), tls.clientCertChain(), tls.clientCertName(), tls.clientCertError(),
                tls.tlsVersion(), tls.cipherSuite()};
    }

    /** The ASGI TLS extension as a map, or null without TLS: for the websocket path, which converts its scope whole. */
    public static Map<String, Object> tlsExtension(TlsSession tls) {
        Object[] values = tlsValues(tls);
        if (values == null) {
            return null;
        }
        Map<String, Object> extension = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            extension.put(TLS_KEYS.get(i), values[i]);
        }
        return extension;
    }

    private static Object headers(List<String[]> headers) {
        int size = 0;
        for (String[] header : headers) {
            if (header[1].indexOf(0) >= 0) {
                return pairs(headers);
            }
            size += header[0].length() + header[1].length() + 2;
        }
        byte[] blob = new byte[size];
        int at = 0;
        for (String[] header : headers) {
            at = put(blob, at, header[0], true);
            at = put(blob, at, header[1], false);
        }
        return blob;
    }

    /** Writes {@code text} as ISO-8859-1 (lower-cased for a name) and a NUL; returns the next index. */
    private static int put(byte[] blob, int at, String text, boolean lowerCase) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            blob[at++] = (byte) (lowerCase && c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
        }
        blob[at++] = 0;
        return at;
    }

    private static List<Object[]> pairs(List<String[]> headers) {
        List<Object[]> pairs = new ArrayList<>(headers.size());
        for (String[] header : headers) {
            pairs.add(new Object[]{latin1(header[0].toLowerCase(Locale.ROOT)), latin1(header[1])});
        }
        return pairs;
    }

    static Object[] address(InetSocketAddress address) {
        return address == null ? null : new Object[]{address.getAddress().getHostAddress(), (long) address.getPort()};
    }

    static byte[] latin1(String value) {
        return value.getBytes(StandardCharsets.ISO_8859_1);
    }
}
