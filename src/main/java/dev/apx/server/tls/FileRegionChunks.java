package dev.apx.server.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.stream.ChunkedInput;

import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * On a TLS connection, a file response ({@code http.response.pathsend}, a zero-copy FileRegion on
 * plain TCP) must pass through the TLS engine: this turns the region into chunks a
 * ChunkedWriteHandler (placed between this and the TLS handler) reads while the socket is writable.
 */
public final class FileRegionChunks extends ChannelOutboundHandlerAdapter {
    private static final int CHUNK = 16 * 1024;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ctx.write(msg instanceof FileRegion region ? new RegionInput(region) : msg, promise);
    }

    /** The region's bytes in order; closing releases the region (and its file). */
    private static final class RegionInput implements ChunkedInput<ByteBuf> {
        private final FileRegion region;

        RegionInput(FileRegion region) {
            this.region = region;
        }

        @Override
        public boolean isEndOfInput() {
            return region.transferred() >= region.count();
        }

        @Override
        public void close() {
            region.release();
        }

        @Deprecated
        @Override
        public ByteBuf readChunk(ChannelHandlerContext ctx) throws Exception {
            return readChunk(ctx.alloc());
        }

        @Override
        public ByteBuf readChunk(ByteBufAllocator allocator) throws Exception {
            if (isEndOfInput()) {
                return null;
            }
            ByteBuf chunk = allocator.buffer((int) Math.min(CHUNK, region.count() - region.transferred()));
            try {
                region.transferTo(new WritableByteChannel() {
                    @Override
                    public int write(ByteBuffer source) {
                        int size = Math.min(source.remaining(), chunk.writableBytes());
                        ByteBuffer part = source.slice(source.position(), size);
                        chunk.writeBytes(part);
                        source.position(source.position() + size);
                        return size;
                    }

                    @Override
                    public boolean isOpen() {
                        return true;
                    }

                    @Override
                    public void close() {
                    }
                }, region.transferred());
                return chunk;
            } catch (Exception e) {
                chunk.release();
                throw e;
            }
        }

        @Override
        public long length() {
            return region.count();
        }

        @Override
        public long progress() {
            return region.transferred();
        }
    }
}
