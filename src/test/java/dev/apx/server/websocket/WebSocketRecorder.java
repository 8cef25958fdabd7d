package dev.apx.server.websocket;

import java.io.ByteArrayOutputStream;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a JDK WebSocket client's listener saw, for the tests of apx's own server and of the servlet:
 * each message whole (a String or a byte[]) and in order, then {@code "close CODE REASON"}; the
 * close also completes {@link #closed} with {@code "CODE REASON"}. A close from the server is
 * answered with its code, as the JDK client does once {@code onClose} returns.
 */
public final class WebSocketRecorder implements WebSocket.Listener {
    /** The close as {@code "CODE REASON"}, or {@code "error ..."} when the connection failed. */
    public final CompletableFuture<String> closed = new CompletableFuture<>();
    private final LinkedBlockingQueue<Object> received = new LinkedBlockingQueue<>();
    private final StringBuilder text = new StringBuilder();
    private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

    @Override
    public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
        text.append(data);
        if (last) {
            received.add(text.toString());
            text.setLength(0);
        }
        socket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket socket, ByteBuffer data, boolean last) {
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        binary.writeBytes(bytes);
        if (last) {
            received.add(binary.toByteArray());
            binary.reset();
        }
        socket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket socket, int code, String reason) {
        received.add("close " + code + " " + reason);
        closed.complete(code + " " + reason);
        return null;
    }

    @Override
    public void onError(WebSocket socket, Throwable error) {
        received.add("error " + error);
        closed.complete("error " + error);
    }

    /**
     * The next message or close, waited for up to 20 s.
     *
     * @return a String, a byte[] or {@code "close CODE REASON"}
     * @throws InterruptedException the wait was interrupted
     */
    public Object next() throws InterruptedException {
        Object item = received.poll(20, TimeUnit.SECONDS);
        assertThat(item).as("a message within 20 s").isNotNull();
        return item;
    }
}
