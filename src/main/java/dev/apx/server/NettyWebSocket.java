package dev.apx.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.concurrent.AbstractEventExecutor;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@link WebSocketConnection} over a Netty channel. Messages are written through the channel
 * from the caller's thread: Netty queues them in order and counts their bytes against the
 * channel's high-water mark at once, so {@link #isWritable} sees what the app has sent so far.
 * Off the event loop they are queued lazily (no wake-up) and sent by {@link #flush}. The other
 * calls run in {@link WebSocketHandler} on the event loop (inline when already there, else queued
 * behind earlier writes), which keeps every call in the order it was made.
 */
final class NettyWebSocket implements WebSocketConnection {
    private static final Runnable WAKE_UP = () -> { };
    /** Per event-loop thread: the tasks {@link #afterReads} asked for in the current batch. */
    private static final ThreadLocal<List<Runnable>> AFTER_READS = ThreadLocal.withInitial(ArrayList::new);

    private final Channel channel;
    private final WebSocketHandler handler;
    private final Runnable flushOnLoop;

    NettyWebSocket(Channel channel, WebSocketHandler handler) {
        this.channel = channel;
        this.handler = handler;
        this.flushOnLoop = channel::flush;
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
        write(new TextWebSocketFrame(message));
    }

    @Override
    public void bytes(byte[] message) {
        write(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(message)));
    }

    private void write(WebSocketFrame frame) {
        if (channel.eventLoop().inEventLoop()) {
            channel.writeAndFlush(frame, channel.voidPromise());
        } else {
            channel.write(frame, channel.voidPromise()); // off the loop Netty queues a write without a flush lazily
        }
    }

    /** See {@link WebSocketConnection#flush}: a lazy flush task per channel, then one wake-up per event loop. */
    static void flush(Iterable<? extends WebSocketConnection> connections) {
        List<EventLoop> toWake = new ArrayList<>(2);
        for (WebSocketConnection connection : connections) {
            NettyWebSocket socket = (NettyWebSocket) connection;
            EventLoop loop = socket.channel.eventLoop();
            if (loop.inEventLoop()) {
                socket.channel.flush();
            } else if (loop instanceof AbstractEventExecutor lazy) {
                lazy.lazyExecute(socket.flushOnLoop); // behind the writes, which were queued first
                if (!containsSame(toWake, loop)) {
                    toWake.add(loop);
                }
            } else {
                loop.execute(socket.flushOnLoop);
            }
        }
        for (EventLoop loop : toWake) {
            loop.execute(WAKE_UP);
        }
    }

    private static boolean containsSame(List<EventLoop> loops, EventLoop loop) {
        for (EventLoop each : loops) {
            if (each == loop) {
                return true;
            }
        }
        return false;
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

    @Override
    public void afterReads(Runnable task) {
        if (!channel.eventLoop().inEventLoop()) {
            task.run();
            return;
        }
        List<Runnable> pending = AFTER_READS.get();
        for (Runnable each : pending) {
            if (each == task) {
                return;
            }
        }
        if (pending.isEmpty()) {
            channel.eventLoop().execute(() -> runAfterReads(pending)); // tasks run after the loop's I/O
        }
        pending.add(task);
    }

    private static void runAfterReads(List<Runnable> pending) {
        Runnable[] tasks = pending.toArray(new Runnable[0]);
        pending.clear();
        for (Runnable task : tasks) {
            task.run();
        }
    }
}
