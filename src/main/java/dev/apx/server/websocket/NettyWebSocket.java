package dev.apx.server.websocket;

import dev.apx.server.api.WebSocketConnection;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;

import java.util.List;

/**
 * A {@link WebSocketConnection} over a Netty channel. Messages are written through the channel
 * from the caller's thread: Netty queues them in order and counts their bytes against the
 * channel's high-water mark at once, so {@link #isWritable} sees what the app has sent so far.
 * The other calls run in {@link WebSocketHandler} on the event loop (inline when already there,
 * else queued behind earlier writes), which keeps every call in the order it was made.
 */
final class NettyWebSocket implements WebSocketConnection {
    private final Channel channel;
    private final WebSocketHandler handler;
    private final int maxQueue;

    NettyWebSocket(Channel channel, WebSocketHandler handler, int maxQueue) {
        this.channel = channel;
        this.handler = handler;
        this.maxQueue = maxQueue;
    }

    @Override
    public int maxQueue() {
        return maxQueue;
    }

    private void onLoop(Runnable task) {
        if (channel.eventLoop().inEventLoop()) {
            task.run();
        } else {
            channel.eventLoop().execute(task);
        }
    }

    @Override
    public void accept(String subprotocol, List<String[]> headers) {
        onLoop(() -> handler.accept(subprotocol, headers));
    }

    @Override
    public void deny(int status, List<String[]> headers, byte[] body) {
        onLoop(() -> handler.deny(status, headers, body));
    }

    @Override
    public void text(String message) {
        channel.writeAndFlush(new TextWebSocketFrame(message), channel.voidPromise());
    }

    @Override
    public void bytes(byte[] message) {
        channel.writeAndFlush(new BinaryWebSocketFrame(io.netty.buffer.Unpooled.wrappedBuffer(message)), channel.voidPromise());
    }

    @Override
    public void close(int code, String reason) {
        onLoop(() -> handler.close(code, reason));
    }

    @Override
    public boolean isWritable() {
        return channel.isWritable();
    }

    @Override
    public void pauseReading(boolean paused) {
        onLoop(() -> handler.pauseReading(paused));
    }

    @Override
    public void abort() {
        onLoop(handler::abort);
    }
}
