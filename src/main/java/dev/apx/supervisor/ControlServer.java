package dev.apx.supervisor;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.FileDescriptor;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The supervisor's end of the control socket (see the package doc): knows a worker by the pid the
 * kernel reports for the connecting peer, hands it the listening socket, and passes its lines to its {@link Worker}.
 */
final class ControlServer implements AutoCloseable {
    private final Path directory;
    private final Path path;
    private final EventLoopGroup group;
    private final Channel channel;
    private final Map<Long, Worker> workers = new ConcurrentHashMap<>();

    private ControlServer(Path directory, Path path, EventLoopGroup group, Channel channel) {
        this.directory = directory;
        this.path = path;
        this.group = group;
        this.channel = channel;
    }

    static ControlServer start(int listenFd) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            Path directory = Files.createTempDirectory("apx-"); // 0700: only this user's processes can connect
            Path path = directory.resolve("control.sock");
            ControlServer[] self = new ControlServer[1];
            Channel channel = new ServerBootstrap().group(group).channel(EpollServerDomainSocketChannel.class)
                    .childHandler(new ChannelInitializer<EpollDomainSocketChannel>() {
                        @Override
                        protected void initChannel(EpollDomainSocketChannel child) {
                            child.pipeline().addLast(new LineBasedFrameDecoder(64), new StringDecoder(StandardCharsets.US_ASCII),
                                    new Link(self[0], listenFd));
                        }
                    })
                    .bind(new DomainSocketAddress(path.toFile())).sync().channel();
            self[0] = new ControlServer(directory, path, group, channel);
            return self[0];
        } catch (IOException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new UncheckedIOException("cannot create the workers' control socket: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    Path path() {
        return path;
    }

    /** Starts a worker in {@code slot} (its {@code APX_WORKER_ID}; null: none). */
    Worker start(WorkerCommand command, Integer slot) {
        Worker worker = Worker.start(command, path, slot);
        workers.put(worker.pid(), worker);
        return worker;
    }

    void forget(Worker worker) {
        workers.remove(worker.pid());
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        try {
            Files.deleteIfExists(path);
            Files.deleteIfExists(directory);
        } catch (IOException ignored) {
            // a temporary directory
        }
    }

    /** One worker's connection. */
    private static final class Link extends SimpleChannelInboundHandler<String> {
        private final ControlServer server;
        private final int listenFd;
        private Worker worker;

        Link(ControlServer server, int listenFd) {
            this.server = server;
            this.listenFd = listenFd;
        }

        @Override
        public void channelActive(ChannelHandlerContext context) throws IOException {
            long pid = ((EpollDomainSocketChannel) context.channel()).peerCredentials().pid();
            worker = server.workers.get(pid);
            if (worker == null) { // not one of ours (only this user can reach the socket, but still)
                context.close();
                return;
            }
            worker.connected(context.channel());
            context.writeAndFlush(new FileDescriptor(listenFd));
        }

        @Override
        protected void channelRead0(ChannelHandlerContext context, String line) {
            if (worker != null) {
                worker.message(line.strip());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            context.close();
        }
    }
}
