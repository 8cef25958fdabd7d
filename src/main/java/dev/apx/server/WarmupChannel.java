package dev.apx.server;

import dev.apx.server.api.HttpApp;
import dev.apx.server.shared.Limits;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.shared.ServerState;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs requests through a connection's pipeline ({@link ChannelSetup}: decoder, encoder,
 * exchanges) to {@code app} before the port opens, so that the first clients do not pay for class
 * loading and interpreted code. The connection is an in-VM {@link LocalChannel} on a throwaway
 * event loop of its own (not the server's, whose threads may change): a real channel, so a
 * response written from the asyncio loop thread is handed to the channel's thread as in serving.
 * No socket, no access log, no request count of the real server.
 */
public final class WarmupChannel {
    private static final int PIPELINED = 16;
    private static final String[] PATHS = {"/", "/sleep", "/stream", "/echo", "/sleep", "/missing?q=1"};
    private static final byte[] BODY = "x".repeat(64).getBytes(StandardCharsets.US_ASCII);

    private WarmupChannel() {
    }

    /** Sends {@code requests} requests to {@code app} (pipelined, 16 at a time); returns how many were answered within {@code timeout}. */
    public static int run(ServerConfig config, HttpApp app, int requests, Duration timeout) throws InterruptedException {
        ServerConfig quiet = config.withAccessLog(false).withLimitConcurrency(0).withLimits(Limits.defaults());
        ServerState state = new ServerState(quiet, app, new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), new AtomicInteger());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
        Semaphore answered = new Semaphore(0);
        AtomicInteger total = new AtomicInteger();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            LocalAddress address = new LocalAddress("apx-warmup-" + System.nanoTime());
            Channel server = new ServerBootstrap().group(group).channel(LocalServerChannel.class)
                    .childHandler(new ChannelSetup(state)).bind(address).sync().channel();
            Channel client = new Bootstrap().group(group).channel(LocalChannel.class).handler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel channel) {
                    channel.pipeline().addLast(new HttpClientCodec()).addLast(new SimpleChannelInboundHandler<Object>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, Object message) {
                            if (message instanceof LastHttpContent) {
                                total.incrementAndGet();
                                answered.release();
                            }
                        }
                    });
                }
            }).connect(address).sync().channel();
            int sent = 0;
            while (sent < requests) {
                int batch = Math.min(PIPELINED, requests - sent);
                for (int i = 0; i < batch; i++) {
                    client.write(request(PATHS[(sent + i) % PATHS.length]));
                }
                client.flush();
                sent += batch;
                long left = deadline - System.nanoTime();
                if (left <= 0 || !answered.tryAcquire(batch, left, TimeUnit.NANOSECONDS)) {
                    break;
                }
            }
            client.close().sync();
            server.close().sync();
            return total.get();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }

    private static FullHttpRequest request(String path) {
        boolean post = path.equals("/echo");
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, post ? HttpMethod.POST : HttpMethod.GET, path,
                post ? Unpooled.wrappedBuffer(BODY) : Unpooled.EMPTY_BUFFER);
        request.headers().set(HttpHeaderNames.HOST, "warmup").set(HttpHeaderNames.USER_AGENT, "apx-warmup")
                .set(HttpHeaderNames.CONTENT_LENGTH, post ? BODY.length : 0);
        return request;
    }
}
