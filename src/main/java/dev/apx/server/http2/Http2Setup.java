package dev.apx.server.http2;

import dev.apx.server.HttpObserver;
import dev.apx.server.ServerState;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.stream.ChunkedWriteHandler;

/**
 * The HTTP/2 part of a connection's pipeline: Netty's frame codec (settings from
 * {@link Http2Config}, and its defences switched on: rapid reset, CONTINUATION and empty-frame
 * floods, queued control frames), the multiplexer that gives each stream a child channel with a
 * {@link StreamHandler} (and, with {@code --metrics}, a {@link StreamObserver} in front of it), and
 * the connection's {@link Http2Connection}. The same handlers serve a connection that began with the
 * client preface (ALPN h2, prior knowledge) and one upgraded from HTTP/1.1 ({@link #upgradeCodec}).
 */
public final class Http2Setup {
    /** RST_STREAM frames a client may send per window before GOAWAY (CVE-2023-44487, "rapid reset"). */
    static final int MAX_RESETS = 200;
    static final int RESET_WINDOW_SECONDS = 30;
    /** Tiny CONTINUATION frames in a row before GOAWAY (CVE-2024-27316 and kin). */
    static final int MAX_SMALL_CONTINUATIONS = 16;
    /** Control frames (SETTINGS/PING acks, RST_STREAM) queued for a client that does not read, before the connection closes. */
    static final int MAX_QUEUED_CONTROL_FRAMES = 1000;

    private Http2Setup() {
    }

    /** A connection that speaks HTTP/2 from its first byte; with --metrics it is counted as a connection here. */
    public static void configure(ChannelPipeline pipeline, ServerState state) {
        if (state.observer() != HttpObserver.NONE) {
            pipeline.addLast("h2-observer", new ConnectionObserver(state.observer()));
        }
        ChannelHandler[] handlers = streamHandlers(state);
        pipeline.addLast("h2", frameCodec(state)).addLast("h2-streams", handlers[0]).addLast("h2-connection", handlers[1]);
    }

    /** {@code Upgrade: h2c}: Netty's codec answers 101 and puts the same handlers in place; the request becomes stream 1. */
    public static Http2ServerUpgradeCodec upgradeCodec(ServerState state) {
        return new Http2ServerUpgradeCodec(frameCodec(state), streamHandlers(state));
    }

    private static Http2FrameCodec frameCodec(ServerState state) {
        Http2Config config = state.config().protocols().http2();
        Http2Settings settings = Http2Settings.defaultSettings()
                .maxConcurrentStreams(config.maxConcurrentStreams())
                .maxHeaderListSize(config.maxHeaderListSize())
                .initialWindowSize(config.initialWindowSize())
                .maxFrameSize(config.maxFrameSize());
        return Http2FrameCodecBuilder.forServer()
                .initialSettings(settings)
                .validateHeaders(true)
                .validateRequiredPseudoHeaders(true)
                .decoderEnforceMaxRstFramesPerWindow(MAX_RESETS, RESET_WINDOW_SECONDS)
                .decoderEnforceMaxSmallContinuationFrames(MAX_SMALL_CONTINUATIONS)
                .encoderEnforceMaxQueuedControlFrames(MAX_QUEUED_CONTROL_FRAMES)
                .gracefulShutdownTimeoutMillis(-1) // the server's --timeout-graceful-shutdown decides
                .build();
    }

    private static ChannelHandler[] streamHandlers(ServerState state) {
        Http2Connection connection = new Http2Connection(state.config().keepAliveTimeoutSeconds());
        HttpObserver observer = state.observer();
        Http2MultiplexHandler streams = new Http2MultiplexHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel stream) {
                if (observer != HttpObserver.NONE) { // first, so it sees the DATA frames the files handler makes of a pathsend
                    stream.pipeline().addLast("observer", new StreamObserver(observer));
                }
                stream.pipeline()
                        .addLast("files", new ChunkedWriteHandler())
                        .addLast("request", new StreamHandler(state, connection));
            }
        });
        return new ChannelHandler[]{streams, connection};
    }
}
