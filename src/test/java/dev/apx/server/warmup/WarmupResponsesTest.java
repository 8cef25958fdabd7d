package dev.apx.server.warmup;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The warm-up client's response reader: where each response ends, whatever the reads split. */
class WarmupResponsesTest {
    private static final String LENGTH = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, world!";
    private static final String CHUNKED = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nHello\r\n8\r\n, world!\r\n0\r\n\r\n";
    private static final String EMPTY = "HTTP/1.1 204 No Content\r\nServer: apx\r\n\r\n";

    @Test
    void countsResponsesThatArriveWhole() {
        ByteBuf in = bytes(LENGTH + CHUNKED + EMPTY + LENGTH);
        assertThat(new WarmupResponses().feed(in)).isEqualTo(4);
        assertThat(in.readableBytes()).isZero();
    }

    @Test
    void countsResponsesSplitAtEveryByte() {
        byte[] all = (CHUNKED + LENGTH + CHUNKED).getBytes(StandardCharsets.US_ASCII);
        WarmupResponses responses = new WarmupResponses();
        ByteBuf received = Unpooled.buffer();
        int done = 0;
        for (byte b : all) {
            received.writeByte(b);
            done += responses.feed(received);
            received.discardReadBytes();
        }
        assertThat(done).isEqualTo(3);
        assertThat(responses.idle()).isTrue();
    }

    @Test
    void aPartialResponseIsNotCounted() {
        WarmupResponses responses = new WarmupResponses();
        assertThat(responses.feed(bytes(LENGTH.substring(0, LENGTH.length() - 1)))).isZero();
        assertThat(responses.idle()).isFalse();
    }

    @Test
    void somethingElseThanHttp11IsAnError() {
        assertThatThrownBy(() -> new WarmupResponses().feed(bytes("SSH-2.0-OpenSSH\r\n\r\n"))).isInstanceOf(IllegalStateException.class);
    }

    private static ByteBuf bytes(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }
}
