package dev.apx.server.api;

import dev.apx.server.tls.TlsSession;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The request line and headers as received.
 *
 * @param headers name/value pairs in arrival order, duplicates kept, as ISO-8859-1 strings (bytes 1:1)
 * @param client  the peer, or null on a Unix socket
 * @param server  the local address, or null on a Unix socket
 * @param socketPath the Unix socket path, or null on TCP
 * @param bodyless  the request has no body (no Content-Length above 0, not chunked): the app's first
 *                  receive() can answer at once; the decoder's empty end-of-body still follows
 *                  through {@link Exchange#body}
 * @param tls       the connection's TLS session (scheme https, the ASGI TLS extension), or null on plain TCP
 */
public record RequestHead(String method, String uri, String httpVersion, List<String[]> headers,
                          InetSocketAddress client, InetSocketAddress server, String socketPath, boolean bodyless,
                          TlsSession tls) {

    /** A head from a plain TCP or Unix socket connection. */
    public RequestHead(String method, String uri, String httpVersion, List<String[]> headers,
                       InetSocketAddress client, InetSocketAddress server, String socketPath, boolean bodyless) {
        this(method, uri, httpVersion, headers, client, server, socketPath, bodyless, null);
    }

    /** A head whose body, if any, arrives through {@link Exchange#body}. */
    public RequestHead(String method, String uri, String httpVersion, List<String[]> headers,
                       InetSocketAddress client, InetSocketAddress server, String socketPath) {
        this(method, uri, httpVersion, headers, client, server, socketPath, false);
    }
}
