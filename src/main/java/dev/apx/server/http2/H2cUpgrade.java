package dev.apx.server.http2;

import dev.apx.server.shared.ServerState;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.util.AsciiString;

/**
 * {@code Upgrade: h2c} on cleartext HTTP/1.1 (RFC 7540 3.2), with {@code --h2c-upgrade} only: Netty's
 * upgrade handler and {@link Http2Setup#upgradeCodec}: 101, then the HTTP/1.1 handlers leave
 * ({@code http1Handlers}) and the request is served as HTTP/2 stream 1. Taken up on a connection's
 * first request only, and only when it has no body (a body would be read whole into memory before the
 * switch); any other request goes on as HTTP/1.1, as when the flag is off. Once the first request is
 * through, this handler leaves the pipeline.
 */
public final class H2cUpgrade extends HttpServerUpgradeHandler {
    private H2cUpgrade(SourceCodec http1Handlers, UpgradeCodecFactory codecs) {
        super(http1Handlers, codecs, 0, true);
    }

    public static H2cUpgrade handler(ServerState state, SourceCodec http1Handlers) {
        return new H2cUpgrade(http1Handlers, protocol -> AsciiString.contentEqualsIgnoreCase(protocol, Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME)
                ? Http2Setup.upgradeCodec(state) : null);
    }

    @Override
    protected boolean shouldHandleUpgradeRequest(HttpRequest request) {
        return request.decoderResult().isSuccess()
                && request.headers().containsValue(HttpHeaderNames.UPGRADE, Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, true)
                && !HttpUtil.isTransferEncodingChunked(request) && HttpUtil.getContentLength(request, 0L) == 0L;
    }
}
