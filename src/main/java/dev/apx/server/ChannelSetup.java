package dev.apx.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * The pipeline of one connection, in order: the keep-alive idle timer, the HTTP/1.1 codec (limits
 * from {@link ServerConfig}), {@code Expect: 100-continue}, then the handler that turns requests
 * into {@link Exchange}s.
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
        channel.pipeline()
                .addLast("idle", new IdleStateHandler(0, 0, config.keepAliveTimeoutSeconds()))
                .addLast("http", new HttpServerCodec(new HttpDecoderConfig()
                        .setMaxInitialLineLength(config.maxInitialLineLength())
                        .setMaxHeaderSize(config.maxHeaderSize())
                        .setMaxChunkSize(64 * 1024)))
                .addLast("continue", new HttpServerExpectContinueHandler())
                .addLast("exchanges", new ExchangeHandler(state));
    }
}
