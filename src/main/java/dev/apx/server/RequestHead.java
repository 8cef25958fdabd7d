package dev.apx.server;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The request line and headers as received.
 *
 * @param headers name/value pairs in arrival order, duplicates kept, as ISO-8859-1 strings (bytes 1:1)
 * @param client  the peer, or null on a Unix socket
 * @param server  the local address, or null on a Unix socket
 * @param socketPath the Unix socket path, or null on TCP
 */
public record RequestHead(String method, String uri, String httpVersion, List<String[]> headers,
                          InetSocketAddress client, InetSocketAddress server, String socketPath) {
}
