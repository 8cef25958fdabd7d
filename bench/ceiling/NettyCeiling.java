import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpApp;
import dev.apx.server.Server;
import dev.apx.server.shared.ServerConfig;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * The plaintext ceiling for bench/run: "Hello, world!" (13 bytes, with server and date headers as
 * apx sends them) answered by Java alone, no Python. Two variants:
 * <ul>
 *   <li>{@code netty}: a bare Netty handler on the settings of {@link Server} (epoll, one boss
 *       thread, one worker thread for the one core bench/run gives a server, HttpServerCodec with
 *       apx's decoder limits, TCP_NODELAY, backlog 2048, no leak detector): what this machine can do
 *       with Netty at all;</li>
 *   <li>{@code apx-server}: apx's own {@link Server} (pipeline, ExchangeHandler, NettyResponse)
 *       with an {@link HttpApp} written in Java: apx minus the ASGI layer and Python.</li>
 * </ul>
 * Usage: {@code NettyCeiling netty|apx-server PORT}; serves on 127.0.0.1 until killed.
 */
public final class NettyCeiling {
    private static final byte[] HELLO = "Hello, world!".getBytes(StandardCharsets.US_ASCII);
    private static final DateTimeFormatter DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private NettyCeiling() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !List.of("netty", "apx-server").contains(args[0])) {
            System.err.println("usage: NettyCeiling netty|apx-server PORT");
            System.exit(2);
        }
        int port = Integer.parseInt(args[1]);
        // As apx's command line (cli/Main): Netty's sampled leak tracing fills stack traces on the hot path.
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        if (args[0].equals("netty")) {
            bareNetty(port);
        } else {
            apxServer(port);
        }
    }

    private static void apxServer(int port) throws InterruptedException {
        ServerConfig config = ServerConfig.defaults().withPort(port).withAccessLog(false);
        List<String[]> headers = List.of(new String[] {"content-type", "text/plain"}, new String[] {"content-length", "13"});
        HttpApp hello = (head, response) -> {
            response.start(200, headers, false);
            response.body(HELLO, false);
            return new Exchange() {
                @Override
                public void body(byte[] chunk, boolean last) {
                }

                @Override
                public void disconnected() {
                }

                @Override
                public void writable() {
                }
            };
        };
        try (Server server = Server.start(config, hello)) {
            System.err.printf("apx-server ceiling on 127.0.0.1:%d (%s)%n", server.port(), server.transport());
            new CountDownLatch(1).await();
        }
    }

    private static void bareNetty(int port) throws InterruptedException {
        if (!Epoll.isAvailable()) {
            throw new IllegalStateException("the ceiling needs the epoll transport, as apx uses it", Epoll.unavailabilityCause());
        }
        ServerConfig settings = ServerConfig.defaults();
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        // One worker: bench/run pins every server to one core, where a second worker thread only adds switches.
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            Channel listener = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(EpollServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, settings.backlog())
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel channel) {
                            channel.pipeline()
                                    .addLast(new HttpServerCodec(new HttpDecoderConfig()
                                            .setMaxInitialLineLength(settings.maxInitialLineLength())
                                            .setMaxHeaderSize(settings.maxHeaderSize())
                                            .setMaxChunkSize(64 * 1024)))
                                    .addLast(new HelloHandler());
                        }
                    })
                    .bind("127.0.0.1", port).sync().channel();
            System.err.printf("netty ceiling on %s (epoll, 1 worker thread)%n", listener.localAddress());
            listener.closeFuture().sync();
        } finally {
            boss.shutdownGracefully();
            workers.shutdownGracefully();
        }
    }

    /** Answers every request as soon as its head arrives; body pieces are dropped. */
    private static final class HelloHandler extends SimpleChannelInboundHandler<HttpObject> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (!(msg instanceof HttpRequest request)) {
                return;
            }
            ByteBuf body = Unpooled.wrappedBuffer(HELLO);
            DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
            HttpHeaders headers = response.headers();
            headers.add("server", "apx");
            headers.add("date", DATE.format(ZonedDateTime.now(ZoneOffset.UTC)));
            headers.add("content-type", "text/plain");
            headers.add("content-length", HELLO.length);
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (keepAlive) {
                ctx.writeAndFlush(response);
            } else {
                headers.add("connection", "close");
                ctx.writeAndFlush(response).addListener(io.netty.channel.ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
