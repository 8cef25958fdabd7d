package dev.apx.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * The pipeline of one connection, in order: the keep-alive idle timer, the write timeout, the
 * request decoder (limits and strictness from {@link ServerConfig}; it also runs the header read
 * timeout) and the response encoder, {@code Expect: 100-continue}, with {@code --metrics} the
 * {@link ObservingHandler}, then the handler that turns requests into {@link Exchange}s.
 */
final class ChannelSetup extends ChannelInitializer<Channel> {
    private final ServerState state;

    ChannelSetup(ServerState state) {
        this.state = state;
    }

    @Override
    protected void initChannel(Channel channel) {
        ServerConfig config = state.config();
        state.connections().add(channel);
        HeadRequests heads = new HeadRequests();
        channel.pipeline()
                .addLast("idle", new IdleStateHandler(0, 0, config.keepAliveTimeoutSeconds()))
                .addLast("write-timeout", new StalledWriteHandler(config.limits().writeTimeoutSeconds()))
                // The encoder before the decoder: what the decoder's position writes (Netty's websocket
                // decoder, once the handshake put it there, sends its 1002/1009 close frames) still
                // passes an encoder on its way out.
                .addLast("encoder", new ResponseEncoder(heads))
                .addLast("decoder", new RequestDecoder(config, heads))
                .addLast("continue", new HttpServerExpectContinueHandler());
        if (state.observer() != HttpObserver.NONE) {
            channel.pipeline().addLast("observer", new ObservingHandler(state.observer()));
        }
        channel.pipeline().addLast("exchanges", new ExchangeHandler(state));
    }
}
