package dev.apx.server;

import dev.apx.server.http2.H2cUpgrade;
import dev.apx.server.http2.Http2Setup;
import dev.apx.server.http2.PriorKnowledge;
import dev.apx.server.tls.FileRegionChunks;
import dev.apx.server.tls.TlsContext;
import dev.apx.server.tls.TlsSetup;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateHandler;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pipeline of one connection. First the keep-alive idle timer, then the protocol: with TLS, the TLS handler, then ALPN picks
 * h2 or HTTP/1.1 ({@link TlsSetup}); in cleartext the first bytes do ({@link PriorKnowledge}),
 * when HTTP/2 is on (and, with {@code --h2c-upgrade}, an {@code Upgrade: h2c} request: {@link H2cUpgrade}). Then, for HTTP/1.1, in order: the write timeout,
 * the request decoder (limits and strictness from {@link ServerConfig}; it also runs the header
 * read timeout) and the response encoder, {@code Expect: 100-continue}, then the handler that turns
 * requests into {@link Exchange}s. For HTTP/2: the write timeout, then
 * {@link Http2Setup}'s connection handler, which serves every stream itself. With {@code --metrics} a
 * {@link ConnectionCounter} sits before the HTTP/1.1 exchanges (the requests are counted by the exchanges themselves).
 */
final class ChannelSetup extends ChannelInitializer<Channel> {
    private final ServerState state;
    private final List<ServerState> perApp; // one per Python runtime; a connection takes the next
    private final AtomicInteger next = new AtomicInteger();

    ChannelSetup(ServerState state) {
        this(List.of(state));
    }

    ChannelSetup(List<ServerState> perApp) {
        this(perApp.getFirst(), perApp);
    }

    private ChannelSetup(ServerState state, List<ServerState> perApp) {
        this.state = state;
        this.perApp = perApp;
    }

    @Override
    protected void initChannel(Channel channel) {
        if (perApp.size() > 1) { // the connection's app for its whole life, round-robin
            new ChannelSetup(perApp.get(Math.floorMod(next.getAndIncrement(), perApp.size())), List.of()).setUp(channel);
            return;
        }
        setUp(channel);
    }

    private void setUp(Channel channel) {
        // First, for every protocol: the keep-alive idle timer also closes a connection that never
        // says which protocol it speaks.
        channel.pipeline().addLast("idle", new IdleStateHandler(0, 0, state.config().keepAliveTimeoutSeconds()));
        Protocols protocols = state.config().protocols();
        boolean h2 = protocols.http2().enabled();
        TlsContext tls = protocols.tls();
        if (tls != null) {
            channel.pipeline()
                    .addLast("tls", tls.newHandler(channel.alloc()))
                    .addLast("alpn", new TlsSetup(tls, this::https1, h2 ? this::http2 : null));
        } else if (h2) {
            channel.pipeline().addLast("prior-knowledge",
                    new PriorKnowledge(protocols.http2().h2cUpgrade() ? this::http1OrUpgrade : this::http1, this::http2));
        } else {
            http1(channel.pipeline());
        }
    }

    private void http1(ChannelPipeline pipeline) {
        ServerConfig config = state.config();
        HeadRequests heads = new HeadRequests();
        pipeline
                .addLast("write-timeout", new StalledWriteHandler(config.limits().writeTimeoutSeconds()))
                // The encoder before the decoder: what the decoder's position writes (Netty's websocket
                // decoder, once the handshake put it there, sends its 1002/1009 close frames) still
                // passes an encoder on its way out.
                .addLast("encoder", new ResponseEncoder(heads))
                .addLast("decoder", new RequestDecoder(config, heads))
                .addLast("continue", new HttpServerExpectContinueHandler());
        if (state.observer() != HttpObserver.NONE) {
            pipeline.addLast("observer", new ConnectionCounter(state.observer()));
        }
        pipeline.addLast("exchanges", new ExchangeHandler(state));
    }

    /**
     * Cleartext HTTP/1.1 with --h2c-upgrade: {@link H2cUpgrade} after the decoder; when it switches, the
     * HTTP/1.1 handlers go (the write timeout, and the observer that counts the connection, stay).
     */
    private void http1OrUpgrade(ChannelPipeline pipeline) {
        http1(pipeline);
        pipeline.addAfter("continue", "h2c-upgrade", H2cUpgrade.handler(state, upgrade -> {
            ChannelPipeline p = upgrade.pipeline();
            p.remove("encoder");
            p.remove("decoder");
            p.remove("continue");
            p.remove("exchanges");
        }));
    }

    /** HTTP/1.1 over TLS: file responses become chunks the TLS engine can encrypt (no zero-copy sendfile). */
    private void https1(ChannelPipeline pipeline) {
        pipeline.addLast("file-chunks", new ChunkedWriteHandler()).addLast("file-regions", new FileRegionChunks());
        http1(pipeline);
    }

    private void http2(ChannelPipeline pipeline) {
        ServerConfig config = state.config();
        pipeline.addLast("write-timeout", new StalledWriteHandler(config.limits().writeTimeoutSeconds()));
        Http2Setup.configure(pipeline, state);
    }
}
