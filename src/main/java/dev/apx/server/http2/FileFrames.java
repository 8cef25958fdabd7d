package dev.apx.server.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file ({@code http.response.pathsend}) as DATA frames, read a chunk at a time by
 * {@link StreamRequest} while the stream's window has room (HTTP/2 has no zero-copy sendfile: every
 * frame is framed, and on TLS encrypted). The last chunk ends the stream unless trailers follow.
 */
final class FileFrames {
    private static final int CHUNK = 16 * 1024;

    private final FileChannel file;
    private final long size;
    private final boolean endStream;
    private long position;
    private boolean emptyEndSent;

    private FileFrames(FileChannel file, long size, boolean endStream) {
        this.file = file;
        this.size = size;
        this.endStream = endStream;
    }

    static FileFrames open(Path path, boolean endStream) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new FileFrames(channel, channel.size(), endStream);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    boolean endsStream() {
        return endStream;
    }

    /** Everything is read (an empty file that ends the stream still owes its one empty frame). */
    boolean done() {
        return position >= size && (emptyEndSent || size > 0 || !endStream);
    }

    /** The next chunk; a file that shrank under us ends where it now ends. */
    ByteBuf next(ByteBufAllocator allocator) throws IOException {
        if (size == 0) {
            emptyEndSent = true;
            return allocator.buffer(0);
        }
        int length = (int) Math.min(CHUNK, size - position);
        ByteBuf chunk = allocator.directBuffer(length);
        try {
            while (chunk.writableBytes() > 0) {
                int read = chunk.writeBytes(file, position, chunk.writableBytes());
                if (read < 0) {
                    position = size;
                    break;
                }
                position += read;
            }
        } catch (IOException | RuntimeException e) {
            chunk.release();
            throw e;
        }
        return chunk;
    }

    void close() {
        try {
            file.close();
        } catch (IOException ignored) {
            // read-only: nothing was lost
        }
    }
}
