package dev.apx.supervisor;

import dev.apx.server.InheritedSocket;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.Socket;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/** The one listening socket the supervisor binds (or inherits with {@code --fd}) and shares with every worker. */
final class ListenSocket implements AutoCloseable {
    private final Socket socket;
    private final Path uds;
    private final String url;

    private ListenSocket(Socket socket, Path uds, String url) {
        this.socket = socket;
        this.uds = uds;
        this.url = url;
    }

    static ListenSocket bind(String host, int port, Path uds, int backlog) {
        Epoll.ensureAvailability();
        try {
            if (uds != null) {
                Files.deleteIfExists(uds);
                Socket socket = Socket.newSocketDomain();
                socket.bind(new DomainSocketAddress(uds.toFile()));
                socket.listen(backlog);
                return new ListenSocket(socket, uds, "unix socket " + uds);
            }
            Socket socket = Socket.newSocketStream();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(host, port));
            socket.listen(backlog);
            String shown = host.contains(":") ? "[" + host + "]" : host;
            return new ListenSocket(socket, null, "http://" + shown + ":" + socket.localAddress().getPort());
        } catch (IOException e) {
            // the OS's words ("Address already in use"), without Netty's "bind(..) failed with error(-98): "
            String reason = String.valueOf(e.getMessage()).replaceFirst("^\\w+\\(\\.\\.\\) failed(?: with error\\(-?\\d+\\))?: ", "");
            throw new CannotBind("cannot bind " + (uds != null ? uds : host + ":" + port) + ": " + reason, e);
        }
    }

    /** {@code --fd N}: a socket bound by systemd or a parent process. */
    static ListenSocket inherit(int fd) {
        InheritedSocket inherited = InheritedSocket.of(fd);
        Socket socket = new Socket(fd);
        String url = inherited.unix() ? "socket " + fd + " (unix)" : "socket " + fd + " (http://" + socket.localAddress().getHostString()
                + ":" + socket.localAddress().getPort() + ")"; // SO_DOMAIN said TCP: the address is real
        return new ListenSocket(socket, null, url);
    }

    int fd() {
        return socket.intValue();
    }

    /** What the "running on" line shows. */
    String url() {
        return url;
    }

    @Override
    public void close() {
        try {
            socket.close();
            if (uds != null) {
                Files.deleteIfExists(uds);
            }
        } catch (IOException ignored) {
            // exiting anyway
        }
    }
}
