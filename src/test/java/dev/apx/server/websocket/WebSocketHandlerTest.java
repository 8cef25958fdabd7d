package dev.apx.server.websocket;

import dev.apx.server.api.WebSocketApp;
import dev.apx.server.api.WebSocketConfig;
import dev.apx.server.api.WebSocketConnection;
import dev.apx.server.api.WebSocketSession;
import dev.apx.server.api.WebSockets;
import dev.apx.server.http1.ExchangeHandler;
import dev.apx.server.shared.ServerConfig;
import dev.apx.server.shared.ServerState;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The Netty side alone on an {@link EmbeddedChannel}: the upgrade, reassembly, limits, ping/pong
 * and the closing handshake, with a Java {@link WebSocketApp} that records what it is told. Every
 * buffer is released: {@code finishAndReleaseAll()} must find nothing left.
 */
class WebSocketHandlerTest {
    private static final int MAX_SIZE = 1000;

    /** What the app side was told, in order. */
    private final List<String> told = new ArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private WebSocketConnection connection;
    private EmbeddedChannel channel;

    @BeforeEach
    void upgrade() {
        WebSocketApp app = (head, conn) -> {
            connection = conn;
            told.add("open " + head.uri());
            return new WebSocketSession() {
                public void text(String message) {
                    told.add("text " + message);
                }

                public void bytes(byte[] message) {
                    told.add("bytes " + message.length);
                }

                public void closed(int code, String reason) {
                    told.add("closed " + code);
                }

                public void writable() {
                }
            };
        };
        WebSocketConfig config = new WebSocketConfig(true, MAX_SIZE, Duration.ZERO, Duration.ZERO, false);
        ServerState state = new ServerState(ServerConfig.defaults().withAccessLog(false), (head, response) -> {
            throw new AssertionError("not an HTTP request");
        }, new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), inFlight, new WebSockets(app, config));
        channel = new EmbeddedChannel();
        channel.pipeline().addLast("http", new HttpServerCodec()).addLast("exchanges", new ExchangeHandler(state));
        channel.writeInbound(ascii("GET /chat?x=1 HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"));
        assertThat(told).containsExactly("open /chat?x=1");
        connection.accept(null, List.of());
        assertThat(outbound()).startsWith("HTTP/1.1 101 Switching Protocols").contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
        told.clear();
    }

    @AfterEach
    void releasesEverything() {
        assertFalse(channel.finishAndReleaseAll());
        assertThat(inFlight.get()).isZero();
    }

    private static ByteBuf ascii(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1);
    }

    /** A masked client frame (zero mask key, so the payload reads as is). */
    private static ByteBuf frame(int opcode, boolean fin, byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write((fin ? 0x80 : 0) | opcode);
        if (payload.length < 126) {
            out.write(0x80 | payload.length);
        } else {
            out.write(0x80 | 126);
            out.write(payload.length >> 8);
            out.write(payload.length & 0xFF);
        }
        out.writeBytes(new byte[4]);
        out.writeBytes(payload);
        return Unpooled.wrappedBuffer(out.toByteArray());
    }

    /** Everything written so far, as ISO-8859-1 text. */
    private String outbound() {
        StringBuilder text = new StringBuilder();
        for (Object message; (message = channel.readOutbound()) != null; ) {
            ByteBuf buffer = (ByteBuf) message;
            text.append(buffer.toString(StandardCharsets.ISO_8859_1));
            buffer.release();
        }
        return text.toString();
    }

    @Test
    void fragmentsBecomeOneMessageAndPingsBetweenThemArePonged() {
        channel.writeInbound(frame(1, false, "hé".getBytes(StandardCharsets.UTF_8)));
        channel.writeInbound(frame(9, true, "p".getBytes(StandardCharsets.US_ASCII)));
        channel.writeInbound(frame(0, true, "llo".getBytes(StandardCharsets.UTF_8)));
        channel.writeInbound(frame(2, true, new byte[300]));
        assertThat(told).containsExactly("text héllo", "bytes 300");
        assertThat(outbound()).isEqualTo("\u008a\u0001p"); // a pong with the ping's payload
    }

    @Test
    void aFragmentedMessageOverTheLimitClosesWith1009AndWaitsForTheClientsClose() {
        channel.writeInbound(frame(2, false, new byte[600]));
        channel.writeInbound(frame(0, true, new byte[600]));
        assertThat(told).containsExactly("closed 1009");
        assertThat(outbound()).startsWith("\u0088").contains("Message exceeds the maximum size (1000 bytes)");
        channel.writeInbound(frame(2, true, new byte[10])); // dropped: the server's close is out
        assertThat(channel.isOpen()).isTrue();
        channel.writeInbound(frame(8, true, new byte[]{0x03, (byte) 0xE9}));
        assertThat(channel.isOpen()).isFalse();
        assertThat(told).containsExactly("closed 1009");
    }

    @Test
    void theClientsCloseIsAnsweredAndReportedOnce() {
        channel.writeInbound(frame(8, true, new byte[]{0x0F, (byte) 0xA0, 'b', 'y', 'e'})); // 4000 "bye"
        assertThat(outbound()).isEqualTo("\u0088\u0002\u000F\u00A0");
        assertThat(channel.isOpen()).isFalse();
        assertThat(told).containsExactly("closed 4000");
    }

    @Test
    void messagesAfterTheAppsCloseAreNotWritten() {
        connection.text("before");
        connection.close(1000, "");
        connection.text("after");
        assertThat(outbound()).isEqualTo("\u0081\u0006before\u0088\u0002\u0003\u00E8");
        assertThat(told).containsExactly("closed 1000");
        channel.writeInbound(frame(8, true, new byte[]{0x03, (byte) 0xE8}));
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aDroppedConnectionIs1006() {
        channel.close();
        assertThat(told).containsExactly("closed 1006");
    }
}
