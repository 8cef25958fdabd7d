package dev.apx.server;

import dev.apx.server.api.HttpObserver;
import dev.apx.server.http1.ExchangeHandler;
import dev.apx.server.http1.HeadRequests;
import dev.apx.server.http1.RequestDecoder;
import dev.apx.server.http1.ResponseEncoder;
import dev.apx.server.http2.H2cUpgrade;
import dev.apx.server.http2.Http2Setup;
import dev.apx.server.http2.PriorKnowledge;
import dev.apx.server.shared.ConnectionCounter;
import dev.apx.server.shared.Protocols;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.shared.ServerState;
import dev.apx.server.shared.StalledWriteHandler;
import dev.apx.server.tls.FileRegionChunks;
import dev.apx.server.tls.TlsContext;
import dev.apx.server.tls.TlsSetup;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateHandler;

import java.util.function.Function;

/**
 * The pipeline of one connection. First the keep-alive idle timer, then the protocol: with TLS, the TLS handler, then ALPN picks
 * h2 or HTTP/1.1 ({@link TlsSetup}); in cleartext the first bytes do ({@link PriorKnowledge}),
 * when HTTP/2 is on (and, with {@code --h2c-upgrade}, an {@code Upgrade: h2c} request: {@link H2cUpgrade}). Then, for HTTP/1.1, in order: the write timeout,
 * the request decoder (limits and strictness from {@link ServerConfig}; it also runs the header
 * read timeout) and the response encoder, then the handler that turns requests into {@code Exchange}s
 * (it sends {@code 100 Continue} when the app asks for the body, and answers a client that half-closed). For HTTP/2: the write timeout, then
 * {@link Http2Setup}'s connection handler, which serves every stream itself. With {@code --metrics} a
 * {@link ConnectionCounter} sits before the HTTP/1.1 exchanges (the requests are counted by the exchanges themselves).
 */
public final class ChannelSetup extends ChannelInitializer<Channel> {
    private final Function<Channel, ServerState> stateOf;

    /** Every connection with {@code state}. */
    public ChannelSetup(ServerState state) {
        this(channel -> state);
    }

    /** Each connection with the state {@code stateOf} gives it (the app instance it is assigned to: {@link AppInstances}). */
    ChannelSetup(Function<Channel, ServerState> stateOf) {
        this.stateOf = stateOf;
    }

    @Override
    protected void initChannel(Channel channel) {
        ServerState state = stateOf.apply(channel);
        // First, for every protocol: the keep-alive idle timer also closes a connection that never
        // says which protocol it speaks.
        channel.pipeline().addLast("idle", new IdleStateHandler(0, 0, state.config().keepAliveTimeoutSeconds()));
        Protocols protocols = state.config().protocols();
        boolean h2 = protocols.http2().enabled();
        TlsContext tls = protocols.tls();
        if (tls != null) {
            channel.pipeline()
                    .addLast("tls", tls.newHandler(channel.alloc()))
                    .addLast("alpn", new TlsSetup(tls, pipeline -> https1(pipeline, state), h2 ? pipeline -> http2(pipeline, state) : null));
        } else if (h2) {
            channel.pipeline().addLast("prior-knowledge",
                    new PriorKnowledge(protocols.http2().h2cUpgrade() ? pipeline -> http1OrUpgrade(pipeline, state)
                            : pipeline -> http1(pipeline, state), pipeline -> http2(pipeline, state)));
        } else {
            http1(channel.pipeline(), state);
        }
    }

    private static void http1(ChannelPipeline pipeline, ServerState state) {
        ServerConfig config = state.config();
        HeadRequests heads = new HeadRequests();
        pipeline
                .addLast("write-timeout", new StalledWriteHandler(config.limits().writeTimeoutSeconds()))
                // The encoder before the decoder: what the decoder's position writes (Netty's websocket
                // decoder, once the handshake put it there, sends its 1002/1009 close frames) still
                // passes an encoder on its way out.
                .addLast("encoder", new ResponseEncoder(heads))
                .addLast("decoder", new RequestDecoder(config, heads));
        // A client that half-closes after its request still gets the answer (ExchangeHandler closes after it)
        pipeline.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        if (state.observer() != HttpObserver.NONE) {
            pipeline.addLast("observer", new ConnectionCounter(state.observer()));
        }
        pipeline.addLast("exchanges", new ExchangeHandler(state));
    }

    /**
     * Cleartext HTTP/1.1 with --h2c-upgrade: {@link H2cUpgrade} after the decoder; when it switches, the
     * HTTP/1.1 handlers go (the write timeout, and the observer that counts the connection, stay).
     */
    private static void http1OrUpgrade(ChannelPipeline pipeline, ServerState state) {
        http1(pipeline, state);
        pipeline.addAfter("decoder", "h2c-upgrade", H2cUpgrade.handler(state, upgrade -> {
            ChannelPipeline p = upgrade.pipeline();
            p.remove("encoder");
            p.remove("decoder");
            p.remove("exchanges");
            upgrade.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, false); // HTTP/2 ends with the client's FIN
        }));
    }

    /** HTTP/1.1 over TLS: file responses become chunks the TLS engine can encrypt (no zero-copy sendfile). */
    private static void https1(ChannelPipeline pipeline, ServerState state) {
        pipeline.addLast("file-chunks", new ChunkedWriteHandler()).addLast("file-regions", new FileRegionChunks());
        http1(pipeline, state);
    }

    private static void http2(ChannelPipeline pipeline, ServerState state) {
        ServerConfig config = state.config();
        pipeline.addLast("write-timeout", new StalledWriteHandler(config.limits().writeTimeoutSeconds()));
        Http2Setup.configure(pipeline, state);
    }
}
