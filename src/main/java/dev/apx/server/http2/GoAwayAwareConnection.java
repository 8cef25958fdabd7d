package dev.apx.server.http2;

import io.netty.handler.codec.http2.DefaultHttp2Connection;

/**
 * Netty's connection state, which also counts the streams the client opened after the server's
 * GOAWAY (a graceful shutdown, a drain) as streams that existed. Netty refuses such a stream
 * (RST_STREAM REFUSED_STREAM) without creating it, so to Netty its id stays idle, and the frame a
 * client sends right behind the HEADERS (httpx: a WINDOW_UPDATE on each new stream; DATA, RST_STREAM)
 * is "a frame on an idle stream": a connection error that cut the streams the drain lets finish.
 * RFC 9113 6.8: frames on streams above the GOAWAY's last-stream-id are ignored. Counted as having
 * existed, Netty's decoder ignores them itself, keeping the connection's state: the DATA still counts
 * against the connection's window (and is handed back), the header block was decoded (HPACK).
 * Only ids up to the highest the client did open: a frame on an id above it is still the
 * connection error RFC 9113 5.1 demands. Event loop only.
 */
final class GoAwayAwareConnection extends DefaultHttp2Connection {
    private int openedAfterGoAway; // the highest stream id the client opened after the GOAWAY (its HEADERS came)

    GoAwayAwareConnection() {
        super(true);
    }

    /** HEADERS on {@code id} after the GOAWAY: Netty refused the stream. */
    void refusedAfterGoAway(int id) {
        openedAfterGoAway = Math.max(openedAfterGoAway, id);
    }

    @Override
    public boolean streamMayHaveExisted(int id) {
        return super.streamMayHaveExisted(id) || id <= openedAfterGoAway && goAwaySent() && remote().isValidStreamId(id);
    }
}
