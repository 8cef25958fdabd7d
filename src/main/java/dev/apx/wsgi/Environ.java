package dev.apx.wsgi;

import dev.apx.app.AppConfig;
import dev.apx.app.PercentDecoding;
import dev.apx.app.ProxyHeaders;
import dev.apx.server.api.RequestHead;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The values of one request's WSGI environ (PEP 3333), computed in Java; {@code _apx._wsgi}'s
 * {@code run} stores them under literal keys. Strings are "native strings": each char one byte
 * (ISO-8859-1), so {@code PATH_INFO} holds the percent-decoded bytes of the path, whatever their
 * encoding, as Gunicorn's does.
 *
 * <p>Header names holding an underscore are dropped, as Gunicorn does by default: both
 * {@code X-Auth} and {@code X_Auth} would become {@code HTTP_X_AUTH}, so a client could pass one
 * off as the other behind a proxy that checks only the dashed form.
 */
record Environ(String method, String scriptName, String pathInfo, String queryString, String protocol, String scheme,
               String serverName, String serverPort, String remoteAddr, String remotePort, Map<String, String> headers) {

    /** The positional arguments of {@code run(handle, ...)}, after the handle; {@code hasBody} last. */
    Object[] runArguments(long handle, boolean hasBody) {
        return new Object[]{handle, method, scriptName, pathInfo, queryString, protocol, scheme, serverName, serverPort,
                remoteAddr, remotePort, headers, hasBody};
    }

    static Environ of(RequestHead head, AppConfig config) {
        String uri = head.uri();
        int question = uri.indexOf('?');
        String rawPath = question < 0 ? uri : uri.substring(0, question);
        String query = question < 0 ? "" : uri.substring(question + 1);
        if (rawPath.startsWith("http://") || rawPath.startsWith("https://")) { // absolute-form
            int slash = rawPath.indexOf('/', rawPath.indexOf("//") + 2);
            rawPath = slash < 0 ? "/" : rawPath.substring(slash);
        }
        String serverName;
        String serverPort;
        if (head.socketPath() != null) {
            serverName = head.socketPath();
            serverPort = "";
        } else if (head.server() != null) {
            serverName = head.server().getAddress().getHostAddress();
            serverPort = String.valueOf(head.server().getPort());
        } else {
            serverName = "localhost";
            serverPort = "80";
        }
        Object[] client = address(head.client());
        ProxyHeaders.Origin origin = ProxyHeaders.forwarded(new ProxyHeaders.Origin("http", client), head, config);
        String scheme = "http";
        if (origin != null) {
            scheme = origin.scheme();
            client = origin.client();
        }
        String pathInfo = PercentDecoding.decode(rawPath, StandardCharsets.ISO_8859_1); // PEP 3333: bytes, one char each
        String scriptName = nativeString(config.rootPath());
        if (config.pathIncludesRoot() && pathInfo.startsWith(scriptName)) { // a servlet's: the target holds the mount point
            pathInfo = pathInfo.substring(scriptName.length());
        }
        return new Environ(head.method(), scriptName, pathInfo, query, head.httpVersion(),
                scheme, serverName, serverPort, client == null ? null : (String) client[0],
                client == null ? null : String.valueOf(client[1]), cgiHeaders(head));
    }

    private static Object[] address(InetSocketAddress address) {
        return address == null ? null : new Object[]{address.getAddress().getHostAddress(), (long) address.getPort()};
    }

    /** HTTP_* keys (CONTENT_TYPE and CONTENT_LENGTH bare), repeated headers joined with commas as Gunicorn does. */
    private static Map<String, String> cgiHeaders(RequestHead head) {
        Map<String, String> headers = HashMap.newHashMap(head.headers().size() + 20); // room for run()'s keys
        for (String[] header : head.headers()) {
            String name = header[0];
            if (name.indexOf('_') >= 0) {
                continue;
            }
            String key;
            if (name.equalsIgnoreCase("content-type")) {
                key = "CONTENT_TYPE";
            } else if (name.equalsIgnoreCase("content-length")) {
                key = "CONTENT_LENGTH";
            } else {
                key = "HTTP_" + name.toUpperCase(Locale.ROOT).replace('-', '_');
            }
            headers.merge(key, header[1], (first, next) -> first + "," + next);
        }
        return headers;
    }

    /** A str as PEP 3333 wants it: its UTF-8 bytes, one char each. */
    private static String nativeString(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }
}
