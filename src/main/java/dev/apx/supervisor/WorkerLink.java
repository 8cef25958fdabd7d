package dev.apx.supervisor;

import dev.apx.server.InheritedSocket;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.DomainSocketReadMode;
import io.netty.channel.unix.FileDescriptor;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A worker's end of the control socket (see the package doc). {@link #socket()} waits for the
 * listening socket; {@link #ready} starts answering pings, each one from the app's event loop thread.
 */
public final class WorkerLink implements AutoCloseable {
    static final String SOCKET_ENV = "APX_SUPERVISOR_SOCKET";
    static final String METRICS_MESSAGE = "metrics ";
    /** Supervisor to worker ({@code --reload}): load the app's new code into fresh runtimes of this process. */
    static final String RELOAD = "reload";
    /** Worker to supervisor, answering {@link #RELOAD}: the new code serves. */
    public static final String RELOADED = "reloaded";
    /** ...: the new code did not import or start; the old code serves on. */
    public static final String RELOAD_FAILED = "reload-failed";
    /** ...: this process cannot load more runtimes; start a new process. */
    public static final String RELOAD_BY_RESTART = "reload-by-restart";

    private final EventLoopGroup group;
    private final Channel channel;
    private final CompletableFuture<Integer> fd = new CompletableFuture<>();
    private final CompletableFuture<Void> gone = new CompletableFuture<>();
    private volatile Consumer<Runnable> onLoop;
    private volatile Supplier<String> onReload; // null: this worker reloads by being restarted

    private WorkerLink(String path) throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        channel = new Bootstrap().group(group).channel(EpollDomainSocketChannel.class)
                .option(EpollChannelOption.DOMAIN_SOCKET_READ_MODE, DomainSocketReadMode.FILE_DESCRIPTORS)
                .handler(new Handler())
                .connect(new DomainSocketAddress(path)).sync().channel();
    }

    /** The link when this process was started by a supervisor ({@code $APX_SUPERVISOR_SOCKET}), else empty. */
    public static Optional<WorkerLink> fromEnvironment(Map<String, String> env) {
        String path = env.get(SOCKET_ENV);
        if (path == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(new WorkerLink(path));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot reach the supervisor at " + path + ": " + e.getMessage(), e);
        }
    }

    /** The supervisor's listening socket, shared by every worker. */
    public InheritedSocket socket() {
        try {
            return InheritedSocket.of(fd.get(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the supervisor did not hand over the listening socket: " + e);
        }
    }

    /** Serving: tells the supervisor, and answers its pings through {@code onLoop} (runs a task on the event loop thread). */
    public void ready(Consumer<Runnable> onLoop) {
        this.onLoop = onLoop;
        send("ready");
    }

    /**
     * With {@code --reload}: {@code reload} loads the new code in this process and returns one of
     * {@link #RELOADED}, {@link #RELOAD_FAILED}, {@link #RELOAD_BY_RESTART}; it runs on a thread of
     * its own, one reload at a time.
     */
    public void onReload(Supplier<String> reload) {
        this.onReload = reload;
    }

    /** With {@code --metrics}: where this worker serves its series (127.0.0.1), for the supervisor to scrape. */
    public void metricsServed(int port) {
        send(METRICS_MESSAGE + port);
    }

    /** Past {@code --limit-max-requests}: the supervisor starts a replacement, then stops this one with SIGTERM. */
    public void recycle() {
        send("recycle");
    }

    /** Completes when the supervisor is gone (its end closed): the worker then stops too. */
    public CompletableFuture<Void> supervisorGone() {
        return gone;
    }

    private void send(String line) {
        channel.writeAndFlush(Unpooled.copiedBuffer(line + "\n", StandardCharsets.US_ASCII));
    }

    @Override
    public void close() {
        channel.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext context, Object message) {
            if (message instanceof FileDescriptor descriptor && !fd.isDone()) {
                fd.complete(descriptor.intValue());
                // from now on, lines
                ((EpollDomainSocketChannel) context.channel()).config().setReadMode(DomainSocketReadMode.BYTES);
                context.pipeline().addBefore(context.name(), "lines", new LineBasedFrameDecoder(64));
                context.pipeline().addBefore(context.name(), "text", new StringDecoder(StandardCharsets.US_ASCII));
                return;
            }
            if (message instanceof String line && line.strip().equals(RELOAD)) {
                Supplier<String> reload = onReload;
                Thread.ofPlatform().name("apx-reload").start(() -> send(reload == null ? RELOAD_BY_RESTART : reload.get()));
            } else if (message instanceof String line && line.strip().equals("ping")) {
                Consumer<Runnable> loop = onLoop;
                if (loop != null) {
                    loop.accept(() -> send("pong"));
                }
            }
            io.netty.util.ReferenceCountUtil.release(message);
        }

        @Override
        public void channelInactive(ChannelHandlerContext context) {
            fd.completeExceptionally(new IllegalStateException("the supervisor closed the control socket"));
            gone.complete(null);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            context.close();
        }
    }
}
