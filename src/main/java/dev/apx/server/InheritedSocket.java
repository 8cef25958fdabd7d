package dev.apx.server;

import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.unix.Socket;

import java.io.IOException;

/**
 * A listening socket this process did not bind: {@code --fd N} (systemd, a parent process), or the one
 * a {@code --workers} supervisor binds once and hands to each worker. The worker serves on it as is:
 * closing it here (shutdown) does not close it in the other processes that hold it.
 */
public record InheritedSocket(int fd, boolean unix) {
    private static final int SOL_SOCKET = 1;
    private static final int SO_ACCEPTCONN = 30;
    private static final int SO_DOMAIN = 39;
    private static final int AF_UNIX = 1;

    /** Checks that {@code fd} is a listening TCP or Unix stream socket and finds which. */
    public static InheritedSocket of(int fd) {
        Epoll.ensureAvailability(); // also loads the native code behind unix.Socket
        Socket socket = new Socket(fd);
        try {
            if (socket.getIntOpt(SOL_SOCKET, SO_ACCEPTCONN) == 0) {
                throw new IllegalArgumentException("file descriptor " + fd + " is a socket but not a listening one");
            }
            return new InheritedSocket(fd, socket.getIntOpt(SOL_SOCKET, SO_DOMAIN) == AF_UNIX);
        } catch (IOException e) {
            throw new IllegalArgumentException("file descriptor " + fd + " is not a listening socket (" + e.getMessage() + ")");
        }
    }

    ServerChannel channel() {
        // active: it is listening already (the one-argument domain constructor would wait for a bind that never comes)
        return unix ? new EpollServerDomainSocketChannel(fd, true) : new EpollServerSocketChannel(fd);
    }
}
