package dev.apx.server;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/** Native epoll where available, NIO otherwise. Unix sockets need epoll. */
record Transport(String name, IoHandlerFactory ioHandlers, Class<? extends ServerChannel> tcp,
                 Class<? extends ServerChannel> unix) {

    static Transport best() {
        if (Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class,
                    EpollServerDomainSocketChannel.class);
        }
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, null);
    }
}
