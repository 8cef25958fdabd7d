package dev.apx.server.http2;

import dev.apx.server.api.HttpObserver;
import dev.apx.server.shared.ConnectionCounter;
import dev.apx.server.shared.Http2Config;
import dev.apx.server.shared.ServerState;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2RemoteFlowController;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.UniformStreamByteDistributor;

/**
 * The HTTP/2 part of a connection's pipeline: one {@link ConnectionHandler}, Netty's connection
 * codec with settings from {@link Http2Config} and its defences switched on (rapid reset,
 * CONTINUATION and empty-frame floods, queued control frames), which serves every stream itself
 * (with {@code --metrics}, a {@link ConnectionCounter} before it), and before it a
 * {@link WriteBatcher} that hands its small writes on as one (not on a connection upgraded from HTTP/1.1:
 * Netty's upgrade puts the handler in place alone). The same handler serves a
 * connection that began with the client preface (ALPN h2, prior knowledge) and one upgraded from
 * HTTP/1.1 ({@link #upgradeCodec}).
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
            pipeline.addLast("h2-observer", new ConnectionCounter(state.observer()));
        }
        pipeline.addLast("h2-batch", new WriteBatcher()).addLast("h2", new Builder(state).build());
    }

    /** {@code Upgrade: h2c}: Netty's codec answers 101 and puts the handler in place; the request becomes stream 1. */
    public static Http2ServerUpgradeCodec upgradeCodec(ServerState state) {
        return new Http2ServerUpgradeCodec(new Builder(state).build());
    }

    private static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<ConnectionHandler, Builder> {
        private final ServerState state;
        private final GoAwayAwareConnection connection = new GoAwayAwareConnection();

        Builder(ServerState state) {
            this.state = state;
            Http2Config config = state.config().protocols().http2();
            // Responses share the client's window evenly; the default distributor keeps RFC 7540's
            // priority tree per stream, which RFC 9113 deprecated and costs on every stream's start and end.
            connection.remote().flowController(new DefaultHttp2RemoteFlowController(connection, new UniformStreamByteDistributor(connection)));
            connection(connection)
                    .initialSettings(Http2Settings.defaultSettings()
                            .maxConcurrentStreams(config.maxConcurrentStreams())
                            .maxHeaderListSize(config.maxHeaderListSize())
                            .initialWindowSize(config.initialWindowSize())
                            .maxFrameSize(config.maxFrameSize()))
                    .validateHeaders(true)
                    .validateRequiredPseudoHeaders(true)
                    .decoderEnforceMaxRstFramesPerWindow(MAX_RESETS, RESET_WINDOW_SECONDS)
                    .decoderEnforceMaxSmallContinuationFrames(MAX_SMALL_CONTINUATIONS)
                    .encoderEnforceMaxQueuedControlFrames(MAX_QUEUED_CONTROL_FRAMES)
                    .gracefulShutdownTimeoutMillis(-1); // the server's --timeout-graceful-shutdown decides
        }

        @Override
        protected ConnectionHandler build() {
            return super.build();
        }

        @Override
        protected ConnectionHandler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
            return new ConnectionHandler(decoder, encoder, settings, state, connection);
        }
    }
}
