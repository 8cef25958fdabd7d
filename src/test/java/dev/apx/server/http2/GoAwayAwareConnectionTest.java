package dev.apx.server.http2;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.Http2Error;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which ids {@link GoAwayAwareConnection} lets Netty's decoder treat as streams that existed: the
 * client's ones up to the highest it opened after the GOAWAY, and no others, so that a frame on an
 * idle stream stays the connection error RFC 9113 5.1 demands (the frames over a socket are
 * {@code Http2StreamStatesTest.framesOnAStreamOpenedAfterGoaway...}).
 */
class GoAwayAwareConnectionTest {
    @Test
    void countsOnlyTheStreamsTheClientOpenedAfterTheGoaway() throws Exception {
        GoAwayAwareConnection connection = new GoAwayAwareConnection();
        connection.remote().createStream(1, true);
        assertThat(connection.streamMayHaveExisted(3)).as("idle, before any GOAWAY").isFalse();

        connection.goAwaySent(1, Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER);
        assertThat(connection.streamMayHaveExisted(3)).as("idle: the client has not opened it").isFalse();

        connection.refusedAfterGoAway(5);
        assertThat(connection.streamMayHaveExisted(1)).isTrue();
        assertThat(connection.streamMayHaveExisted(3)).as("below one the client opened: closed (RFC 9113 5.1.1)").isTrue();
        assertThat(connection.streamMayHaveExisted(5)).as("refused after the GOAWAY").isTrue();
        assertThat(connection.streamMayHaveExisted(7)).as("above every stream the client opened: idle").isFalse();
        assertThat(connection.streamMayHaveExisted(4)).as("a server id the server never used").isFalse();
    }

    @Test
    void beforeTheGoawayNothingChanges() {
        GoAwayAwareConnection connection = new GoAwayAwareConnection();
        connection.refusedAfterGoAway(5); // not called so by ConnectionHandler, but harmless
        assertThat(connection.streamMayHaveExisted(5)).isFalse();
    }
}
