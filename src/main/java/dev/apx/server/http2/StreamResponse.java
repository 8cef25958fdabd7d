package dev.apx.server.http2;

import dev.apx.log.Log;
import dev.apx.server.DateHeader;
import dev.apx.server.OffHeap;
import dev.apx.server.Response;
import dev.apx.server.ServerConfig;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2StreamChannel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Response} written to one HTTP/2 stream: a HEADERS frame, DATA frames, and the app's
 * trailers as a last HEADERS frame. Connection-specific headers (RFC 9113 8.2.2) are dropped, names
 * lower-cased. Writability is the stream's: Netty makes the stream channel unwritable while the
 * stream's or the connection's flow-control window is closed, so {@code send()} waits for the
 * client's WINDOW_UPDATE (a slow reader holds the app back, not memory).
 *
 * <p>Threads: called by the app side (any thread, one at a time); Netty queues writes made off the
 * stream's event loop in order. {@link StreamHandler#responseDone} runs on the event loop.
 */
final class StreamResponse implements Response {
    /** Hop-by-hop headers HTTP/2 forbids; an app written for HTTP/1.1 may still send them. */
    private static final Set<String> CONNECTION_SPECIFIC = Set.of("connection", "keep-alive", "proxy-connection",
            "transfer-encoding", "upgrade");

    private final Http2StreamChannel channel;
    private final StreamHandler handler;
    private final ServerConfig config;
    private final String method;
    private final String path;
    private final boolean head;
    private volatile String logClient;
    private boolean noBody;
    private boolean trailersPending;
    private final AtomicBoolean started = new AtomicBoolean();

    StreamResponse(Http2StreamChannel channel, StreamHandler handler, ServerConfig config, String method, String path) {
        this.channel = channel;
        this.handler = handler;
        this.config = config;
        this.method = method;
        this.path = path;
        this.head = method.equals("HEAD");
    }

    @Override
    public void start(int status, List<String[]> headers, boolean trailers) {
        if (!started.compareAndSet(false, true)) {
            return;
        }
        Http2Headers out = new DefaultHttp2Headers().status(Integer.toString(status));
        if (config.serverHeader()) {
            out.add("server", "apx");
        }
        if (config.dateHeader()) {
            out.add("date", DateHeader.now());
        }
        for (String[] header : headers) {
            String name = header[0].toLowerCase(Locale.ROOT);
            if (CONNECTION_SPECIFIC.contains(name) || (name.equals("te") && !header[1].equalsIgnoreCase("trailers"))) {
                continue;
            }
            out.add(name, header[1]);
        }
        noBody = head || status == 204 || status == 304;
        trailersPending = trailers && !noBody;
        if (config.accessLog()) {
            Log.access(logClient != null ? logClient : handler.client(), method, path, "2", status);
        }
        channel.write(new DefaultHttp2HeadersFrame(out, noBody)); // flushed with the body
        if (noBody) {
            channel.flush();
        }
    }

    @Override
    public void body(byte[] data, boolean more) {
        if (noBody) {
            if (!more) {
                finished(channel.newSucceededFuture());
            }
            return;
        }
        boolean end = !more && !trailersPending;
        if (data.length == 0 && !end) {
            if (!more) {
                channel.flush(); // the body is over; the trailers follow
            }
            return;
        }
        ChannelFuture written = channel.writeAndFlush(new DefaultHttp2DataFrame(OffHeap.copy(channel, data), end));
        if (end) {
            finished(written);
        }
    }

    @Override
    public void file(Path path) throws IOException {
        if (noBody) {
            finished(channel.newSucceededFuture());
            return;
        }
        FileFrames frames = FileFrames.open(path, !trailersPending);
        ChannelFuture written = channel.writeAndFlush(frames);
        if (!trailersPending) {
            finished(written);
        }
    }

    @Override
    public void trailers(List<String[]> headers) {
        if (noBody) {
            finished(channel.newSucceededFuture());
            return;
        }
        Http2Headers trailers = new DefaultHttp2Headers();
        for (String[] header : headers) {
            trailers.add(header[0].toLowerCase(Locale.ROOT), header[1]);
        }
        finished(channel.writeAndFlush(new DefaultHttp2HeadersFrame(trailers, true)));
    }

    private void finished(ChannelFuture written) {
        written.addListener(f -> handler.responseDone(f.isSuccess()));
    }

    @Override
    public void logClientAs(String hostAndPort) {
        logClient = hostAndPort;
    }

    @Override
    public boolean bodyIgnored() {
        return noBody;
    }

    @Override
    public boolean isWritable() {
        boolean writable = handler.writable();
        if (!writable) {
            handler.stalled(); // the app's send() waits: the stream's write timeout starts
        }
        return writable;
    }

    @Override
    public void pauseReading(boolean paused) {
        channel.eventLoop().execute(() -> handler.pauseReading(paused));
    }

    /** The server answers instead of the app (its own error response); false when the app's response started first. */
    boolean preempt() {
        return started.compareAndSet(false, true);
    }

    @Override
    public void fail() {
        start(500, List.of(new String[]{"content-type", "text/plain; charset=utf-8"},
                new String[]{"content-length", "21"}), false);
        body("Internal Server Error".getBytes(StandardCharsets.US_ASCII), false);
    }

    @Override
    public void abort() {
        channel.eventLoop().execute(channel::close); // RST_STREAM: this stream only
    }
}
