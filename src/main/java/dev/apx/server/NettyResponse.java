package dev.apx.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Response} written to a Netty channel. Framing follows Uvicorn: the app's
 * {@code content-length} when given, else chunked on HTTP/1.1 and close-delimited on HTTP/1.0;
 * nothing after the headers for HEAD, 1xx, 204 and 304.
 *
 * <p>Threads: called by the app side (any thread, one at a time); Netty queues writes made off the
 * event loop in order. The end of the response is reported to {@link ExchangeHandler} on the loop.
 */
final class NettyResponse implements Response {
    private final Channel channel;
    private final HttpRequest request;
    private final ExchangeHandler handler;
    private final ServerConfig config;
    private final boolean head;
    private boolean keepAlive;
    private boolean noBody;
    private boolean trailersPending;
    /** NEW, then STARTED by the app or PREEMPTED by the server's own error response (whichever is first). */
    private final AtomicInteger phase = new AtomicInteger(NEW);
    private static final int NEW = 0;
    private static final int STARTED = 1;
    private static final int PREEMPTED = 2;

    NettyResponse(Channel channel, HttpRequest request, boolean keepAlive, ExchangeHandler handler, ServerConfig config) {
        this.channel = channel;
        this.request = request;
        this.keepAlive = keepAlive;
        this.handler = handler;
        this.config = config;
        this.head = request.method().equals(HttpMethod.HEAD);
    }

    @Override
    public void start(int status, List<String[]> headers, boolean trailers) {
        if (!phase.compareAndSet(NEW, STARTED)) {
            return;
        }
        DefaultHttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
        HttpHeaders out = response.headers();
        DefaultHeaders.add(out, config);
        boolean length = false;
        boolean encoding = false;
        for (String[] header : headers) {
            String name = header[0].toLowerCase(Locale.ROOT);
            length |= name.equals("content-length");
            encoding |= name.equals("transfer-encoding");
            if (name.equals("connection") && header[1].equalsIgnoreCase("close")) {
                keepAlive = false;
            }
            out.add(header[0], header[1]);
        }
        noBody = head || status < 200 || status == 204 || status == 304;
        if (!length && !encoding && !noBody) {
            if (request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
                out.add("transfer-encoding", "chunked");
            } else {
                keepAlive = false;
            }
        }
        trailersPending = trailers && !noBody;
        if (!keepAlive && !out.contains("connection")) {
            out.add("connection", "close");
        }
        if (config.accessLog()) {
            Log.access("%s - \"%s %s HTTP/%s\" %d".formatted(clientOf(channel), request.method(), request.uri(),
                    request.protocolVersion().text().substring(5), status));
        }
        channel.write(response);
    }

    private static String clientOf(Channel channel) {
        return channel.remoteAddress() instanceof java.net.InetSocketAddress address
                ? address.getAddress().getHostAddress() + ":" + address.getPort() : "unix";
    }

    @Override
    public void body(byte[] data, boolean more) {
        if (phase.get() == PREEMPTED) {
            return;
        }
        if (!noBody && data.length > 0) {
            channel.write(new DefaultHttpContent(Unpooled.wrappedBuffer(data)));
        }
        if (more) {
            channel.flush();
        } else if (!trailersPending) {
            end(LastHttpContent.EMPTY_LAST_CONTENT);
        } else {
            channel.flush();
        }
    }

    @Override
    public void file(Path path) throws IOException {
        if (phase.get() == PREEMPTED) {
            return;
        }
        if (!noBody) {
            FileChannel file = FileChannel.open(path, StandardOpenOption.READ);
            channel.write(new DefaultFileRegion(file, 0, file.size()));
        }
        if (!trailersPending) {
            end(LastHttpContent.EMPTY_LAST_CONTENT);
        }
    }

    @Override
    public void trailers(List<String[]> headers) {
        if (phase.get() == PREEMPTED) {
            return;
        }
        LastHttpContent last = new DefaultLastHttpContent();
        for (String[] header : headers) {
            last.trailingHeaders().add(header[0], header[1]);
        }
        end(noBody ? LastHttpContent.EMPTY_LAST_CONTENT : last);
    }

    private void end(LastHttpContent last) {
        boolean reuse = keepAlive;
        ChannelFuture written = channel.writeAndFlush(last);
        written.addListener(f -> channel.eventLoop().execute(() -> handler.responseDone(this, reuse && f.isSuccess())));
    }

    /** The server answers instead of the app (event loop); false when the app's response started first. */
    boolean preempt() {
        return phase.compareAndSet(NEW, PREEMPTED);
    }

    @Override
    public boolean isWritable() {
        return channel.isWritable();
    }

    @Override
    public void pauseReading(boolean paused) {
        channel.eventLoop().execute(() -> handler.pauseReading(paused));
    }

    @Override
    public void fail() {
        keepAlive = false;
        start(500, List.of(new String[]{"content-type", "text/plain; charset=utf-8"},
                new String[]{"content-length", "21"}), false);
        body("Internal Server Error".getBytes(java.nio.charset.StandardCharsets.US_ASCII), false);
    }

    @Override
    public void abort() {
        channel.eventLoop().execute(channel::close);
    }
}
