package dev.apx.server.warmup;

import dev.apx.server.shared.Protocols;

import dev.apx.log.Log;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import javax.net.ssl.SSLException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The start-up warm-up's client (see {@link WarmupServer}): {@link #LANES} connections at a time over
 * loopback TCP, each lane opening one connection after another, cycling through the kinds the
 * server speaks (HTTP/1.1 most, h2 and WebSocket when on), each connection running {@link #MIX}
 * in turn until the request budget is spent. HTTP/1.1 connections end by the server's close
 * ({@code Connection: close}) or the client's, in turn. A kind whose connections fail three times
 * (a TLS server that requires client certificates, say) is dropped. A {@link WarmupPace} may hold the
 * lanes back (while the real server is busy) or end them early. Everything runs on one event loop
 * thread of its own, so the lanes' state needs no locks.
 */
final class WarmupClient {
    /** Connections open at a time: a real load's many ready sockets per epoll wake-up. */
    private static final int LANES = 16;
    private static final int REQUESTS_PER_CONNECTION = 24;
    private static final int H2_STREAMS = 4;
    private static final int WS_MESSAGES = 12;
    private static final int FAILURES_TO_DROP = 3;
    /** How often lanes held back by the pace ask it again. */
    private static final long PAUSED_CHECK_MILLIS = 50;

    /** One request of the mix: a path, and a request body of {@code body} bytes (sent chunked when {@code chunked}). */
    private record Call(String path, int body, boolean chunked) {
        HttpMethod method() {
            return body > 0 ? HttpMethod.POST : HttpMethod.GET;
        }
    }

    private static final Call[] MIX = {
        new Call("/", 0, false), new Call("/sleep", 0, false), new Call("/stream", 0, false),
        new Call("/echo", 64, false), new Call("/", 0, false), new Call("/echo", 4096, false),
        new Call("/big", 0, false), new Call("/echo", 12 * 1024, true), new Call("/missing?q=1", 0, false),
        new Call("/sleep", 0, false), new Call("/", 0, false), new Call("/stream", 0, false),
    };
    private static final byte[] BODY = "0123456789abcdef".repeat(1024).getBytes(StandardCharsets.US_ASCII);

    private enum Kind { HTTP1, H2, WEBSOCKET }

    private final int port;
    private final SslContext http1Tls;
    private final SslContext h2Tls;
    private final List<Kind> kinds = new ArrayList<>();
    private final Map<Kind, Integer> answered = new EnumMap<>(Kind.class);
    private final Map<Kind, Integer> failures = new EnumMap<>(Kind.class);
    private final CountDownLatch done = new CountDownLatch(LANES);
    private final Bootstrap bootstrap;
    private final WarmupPace pace;
    private int left;          // requests (and messages) still to send
    private int connections;   // opened so far
    private int next;          // the next connection's kind, an index into kinds
    private int held;          // lanes waiting for the pace

    private WarmupClient(EventLoopGroup group, int port, Protocols protocols, boolean webSockets, int requests, WarmupPace pace)
            throws SSLException {
        this.port = port;
        this.left = requests;
        this.pace = pace;
        boolean h2 = protocols.http2().enabled();
        if (protocols.tls() != null) {
            http1Tls = clientContext(protocols, ApplicationProtocolNames.HTTP_1_1);
            h2Tls = h2 ? clientContext(protocols, ApplicationProtocolNames.HTTP_2) : null;
        } else {
            http1Tls = h2Tls = null;
        }
        // HTTP/1.1 three times in five: what most loads speak
        kinds.addAll(List.of(Kind.HTTP1, Kind.HTTP1));
        if (h2) {
            kinds.add(Kind.H2);
        }
        kinds.add(Kind.HTTP1);
        if (webSockets) {
            kinds.add(Kind.WEBSOCKET);
        }
        for (Kind kind : Kind.values()) {
            answered.put(kind, 0);
            failures.put(kind, 0);
        }
        bootstrap = new Bootstrap().group(group).channel(Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true);
    }

    /** Runs the warm-up against 127.0.0.1:{@code port} at {@code pace}; returns what was answered within {@code timeout}. */
    static WarmupServer.Result run(int port, Protocols protocols, boolean webSockets, int requests, WarmupPace pace, Duration timeout)
            throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        try {
            WarmupClient client;
            try {
                client = new WarmupClient(group, port, protocols, webSockets, requests, pace);
            } catch (SSLException e) {
                throw new IllegalStateException("no TLS client for the warm-up: " + e.getMessage(), e);
            }
            group.execute(() -> {
                for (int lane = 0; lane < LANES; lane++) {
                    client.open();
                }
            });
            client.done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
            // read on the client's thread: its counters are that thread's
            return group.submit(client::result).get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the warm-up client did not answer: " + e, e);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }

    private WarmupServer.Result result() {
        int http1 = answered.get(Kind.HTTP1);
        int h2 = answered.get(Kind.H2);
        int ws = answered.get(Kind.WEBSOCKET);
        return new WarmupServer.Result(http1 + h2 + ws, http1, h2, ws, connections, port);
    }

    private static SslContext clientContext(Protocols protocols, String alpn) throws SSLException {
        // its own server, on loopback, with the certificate it was just given: nothing to verify
        return SslContextBuilder.forClient().sslProvider(protocols.tls().provider())
                .trustManager(InsecureTrustManagerFactory.INSTANCE)
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn))
                .build();
    }

    /** A lane's next connection, or the lane's end when the budget is spent, no kind works or the pace ends it. */
    private void open() {
        if (left <= 0 || kinds.isEmpty() || pace.over()) {
            done.countDown();
            return;
        }
        if (pace.paused()) {
            if (held++ == 0) {
                bootstrap.config().group().schedule(this::release, PAUSED_CHECK_MILLIS, TimeUnit.MILLISECONDS);
            }
            return;
        }
        Kind kind = kinds.get(next++ % kinds.size());
        int number = connections++;
        bootstrap.clone().handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel channel) {
                ChannelPipeline pipeline = channel.pipeline();
                SslContext tls = kind == Kind.H2 ? h2Tls : http1Tls;
                if (tls != null) {
                    pipeline.addLast(tls.newHandler(channel.alloc(), "127.0.0.1", port));
                }
                switch (kind) {
                    case HTTP1 -> pipeline.addLast(new Http1Connection(number % 2 == 0));
                    case H2 -> pipeline.addLast(Http2FrameCodecBuilder.forClient().build(),
                            new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()), new H2Connection(tls != null));
                    case WEBSOCKET -> pipeline.addLast(new HttpClientCodec(), new HttpObjectAggregator(64 * 1024),
                            new WebSocketClientProtocolHandler(WebSocketClientProtocolConfig.newBuilder()
                                    .webSocketUri(URI.create((tls != null ? "wss" : "ws") + "://127.0.0.1:" + port + "/ws"))
                                    .handleCloseFrames(true).build()),
                            new WebSocketConnection());
                }
            }
        }).connect("127.0.0.1", port).addListener(connected -> {
            if (!connected.isSuccess()) {
                failed(kind, connected.cause());
                open();
            }
        });
    }

    /** The held lanes go on once the pace allows (or end, when it says so); else they wait another round. */
    private void release() {
        if (pace.paused() && !pace.over()) {
            bootstrap.config().group().schedule(this::release, PAUSED_CHECK_MILLIS, TimeUnit.MILLISECONDS);
            return;
        }
        int lanes = held;
        held = 0;
        for (int i = 0; i < lanes; i++) {
            open();
        }
    }

    /** A connection of {@code kind} ended after {@code served} answers: the lane goes on. */
    private void ended(Kind kind, int served) {
        if (served == 0 && !pace.paused() && !pace.over()) { // not a failure when the pace closed it before its first answer
            failed(kind, null);
        }
        open();
    }

    private void failed(Kind kind, Throwable cause) {
        int count = failures.merge(kind, 1, Integer::sum);
        if (count == FAILURES_TO_DROP && kinds.removeIf(k -> k == kind)) {
            Log.debug("warm-up: " + kind + " dropped after " + count + " failed connections" + (cause != null ? ": " + cause : ""));
        }
    }

    /** Takes one request from the budget; false when it is spent or the pace holds back (the connection then ends). */
    private boolean take() {
        if (left <= 0 || pace.paused() || pace.over()) {
            return false;
        }
        left--;
        return true;
    }

    private void answer(Kind kind) {
        answered.merge(kind, 1, Integer::sum);
    }

    private static ByteBuf body(int bytes) {
        return Unpooled.wrappedBuffer(BODY, 0, bytes);
    }

    /**
     * HTTP/1.1: one request at a time, as wrk sends them, written as bytes and read by {@link WarmupResponses} (not
     * through the codec classes the server's decoder and encoder extend); the last with {@code Connection: close} when
     * {@code serverCloses}. A chunked request body goes in two writes, so the server reads it in pieces.
     */
    private final class Http1Connection extends ChannelInboundHandlerAdapter {
        private final boolean serverCloses;
        private final WarmupResponses responses = new WarmupResponses();
        private ByteBuf received;
        private int sent;
        private int served;
        private boolean closing;

        Http1Connection(boolean serverCloses) {
            this.serverCloses = serverCloses;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            received = ctx.alloc().buffer(4096);
            sendNext(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object message) {
            ByteBuf bytes = (ByteBuf) message;
            try {
                received.writeBytes(bytes);
            } finally {
                bytes.release();
            }
            int answers = responses.feed(received);
            received.discardReadBytes();
            for (int i = 0; i < answers; i++) {
                served++;
                answer(Kind.HTTP1);
                if (!closing) {
                    sendNext(ctx);
                }
            }
        }

        private void sendNext(ChannelHandlerContext ctx) {
            if (sent == REQUESTS_PER_CONNECTION || !take()) {
                ctx.close();
                return;
            }
            Call call = MIX[sent++ % MIX.length];
            closing = serverCloses && sent == REQUESTS_PER_CONNECTION;
            StringBuilder head = new StringBuilder().append(call.method()).append(' ').append(call.path())
                    .append(" HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: apx-warmup\r\n");
            head.append(call.chunked() ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + call.body() + "\r\n");
            if (closing) {
                head.append("Connection: close\r\n");
            }
            ByteBuf request = Unpooled.copiedBuffer(head.append("\r\n"), StandardCharsets.US_ASCII);
            if (!call.chunked()) {
                ctx.writeAndFlush(call.body() > 0 ? Unpooled.wrappedBuffer(request, body(call.body())) : request);
                return;
            }
            int half = call.body() / 2;
            ctx.writeAndFlush(Unpooled.wrappedBuffer(request, chunk(0, half)));
            ctx.writeAndFlush(Unpooled.wrappedBuffer(chunk(half, call.body() - half),
                    Unpooled.copiedBuffer("0\r\n\r\n", StandardCharsets.US_ASCII)));
        }

        private static ByteBuf chunk(int from, int length) {
            return Unpooled.wrappedBuffer(Unpooled.copiedBuffer(Integer.toHexString(length) + "\r\n", StandardCharsets.US_ASCII),
                    Unpooled.wrappedBuffer(BODY, from, length), Unpooled.copiedBuffer("\r\n", StandardCharsets.US_ASCII));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (received != null) {
                received.release();
                received = null;
            }
            ended(Kind.HTTP1, served);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** h2: {@link #H2_STREAMS} streams at a time, {@link #REQUESTS_PER_CONNECTION} in all, then the client closes. */
    private final class H2Connection extends ChannelInboundHandlerAdapter {
        private final boolean tls;
        private int sent;
        private int served;
        private int open;

        H2Connection(boolean tls) {
            this.tls = tls;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (!tls) {
                start(ctx.channel());
            }
            ctx.fireChannelActive();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof SslHandshakeCompletionEvent completion) {
                if (completion.isSuccess()) {
                    start(ctx.channel());
                } else {
                    ctx.close();
                }
            }
            ctx.fireUserEventTriggered(event);
        }

        private void start(Channel parent) {
            for (int i = 0; i < H2_STREAMS; i++) {
                stream(parent);
            }
        }

        private void stream(Channel parent) {
            if (sent == REQUESTS_PER_CONNECTION || !take()) {
                if (open == 0) {
                    parent.close();
                }
                return;
            }
            Call call = MIX[sent++ % MIX.length];
            open++;
            new Http2StreamChannelBootstrap(parent).handler(new SimpleChannelInboundHandler<Http2StreamFrame>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, Http2StreamFrame frame) {
                    boolean end = frame instanceof Http2HeadersFrame headers ? headers.isEndStream()
                            : frame instanceof Http2DataFrame data && data.isEndStream();
                    if (end) {
                        served++;
                        answer(Kind.H2);
                        ctx.close();
                    }
                }

                @Override
                public void channelInactive(ChannelHandlerContext ctx) {
                    open--;
                    stream(parent);
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    ctx.close();
                }
            }).open().addListener(opened -> {
                if (!opened.isSuccess()) {
                    open--;
                    parent.close();
                    return;
                }
                Http2StreamChannel stream = (Http2StreamChannel) opened.getNow();
                Http2Headers headers = new DefaultHttp2Headers().method(call.method().asciiName()).path(call.path())
                        .scheme(tls ? "https" : "http").authority("127.0.0.1");
                headers.set(HttpHeaderNames.USER_AGENT, "apx-warmup");
                if (call.body() == 0) {
                    stream.writeAndFlush(new DefaultHttp2HeadersFrame(headers, true));
                } else {
                    stream.write(new DefaultHttp2HeadersFrame(headers, false));
                    stream.writeAndFlush(new DefaultHttp2DataFrame(body(call.body()), true));
                }
            });
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ended(Kind.H2, served);
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** A WebSocket: text and binary messages echoed one at a time, then a close frame. */
    private final class WebSocketConnection extends SimpleChannelInboundHandler<WebSocketFrame> {
        private int sent;
        private int served;

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                sendNext(ctx);
            } else if (event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
                ctx.close();
            }
            ctx.fireUserEventTriggered(event);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
            if (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame) {
                served++;
                answer(Kind.WEBSOCKET);
                sendNext(ctx);
            }
        }

        private void sendNext(ChannelHandlerContext ctx) {
            if (sent == WS_MESSAGES || !take()) {
                ctx.writeAndFlush(new CloseWebSocketFrame(1000, "done"));
                return;
            }
            sent++;
            ctx.writeAndFlush(sent % 2 == 0 ? new BinaryWebSocketFrame(body(4096))
                    : new TextWebSocketFrame(Unpooled.wrappedBuffer(BODY, 0, 64)));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ended(Kind.WEBSOCKET, served);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
