package dev.apx.server.shared;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * Body chunks from the app go out in pooled direct buffers, copied on the app's thread. The socket
 * needs direct memory anyway (the epoll transport copies a heap buffer when it is written), and a
 * chunk waiting for a slow client then holds no heap. Wrapped as heap buffers, every chunk in flight
 * outlived the 8 MB young generation and was promoted: 1-2 GB of RSS streaming to 256 clients
 * (docs/startup.md, "Streaming: body chunks off the heap").
 */
public final class OffHeap {
    private OffHeap() {
    }

    public static ByteBuf copy(Channel channel, byte[] data) {
        return channel.alloc().directBuffer(data.length).writeBytes(data);
    }
}
