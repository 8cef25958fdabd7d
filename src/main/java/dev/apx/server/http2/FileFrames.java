package dev.apx.server.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedNioFile;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file ({@code http.response.pathsend}) as DATA frames, read a chunk at a time by the stream's
 * ChunkedWriteHandler while the stream is writable (HTTP/2 has no zero-copy sendfile: every frame
 * is framed, and on TLS encrypted). The last frame ends the stream unless trailers follow.
 */
final class FileFrames implements ChunkedInput<Http2DataFrame> {
    private static final int CHUNK = 16 * 1024;

    private final ChunkedNioFile file;
    private final boolean endStream;
    private boolean endSent;

    private FileFrames(ChunkedNioFile file, boolean endStream) {
        this.file = file;
        this.endStream = endStream;
    }

    static FileFrames open(Path path, boolean endStream) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new FileFrames(new ChunkedNioFile(channel, CHUNK), endStream);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public boolean isEndOfInput() throws Exception {
        return file.isEndOfInput() && (endSent || !endStream);
    }

    @Override
    public void close() throws Exception {
        file.close();
    }

    @Deprecated
    @Override
    public Http2DataFrame readChunk(ChannelHandlerContext ctx) throws Exception {
        return readChunk(ctx.alloc());
    }

    @Override
    public Http2DataFrame readChunk(ByteBufAllocator allocator) throws Exception {
        if (file.isEndOfInput()) {
            if (endStream && !endSent) {
                endSent = true;
                return new DefaultHttp2DataFrame(true); // an empty file, or one that ended exactly at a chunk
            }
            return null;
        }
        ByteBuf data = file.readChunk(allocator);
        boolean last = file.isEndOfInput() && endStream;
        endSent |= last;
        return new DefaultHttp2DataFrame(data, last);
    }

    @Override
    public long length() {
        return file.length();
    }

    @Override
    public long progress() {
        return file.progress();
    }
}
