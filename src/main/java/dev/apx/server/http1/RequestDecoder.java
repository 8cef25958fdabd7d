package dev.apx.server.http1;

import dev.apx.log.Log;
import dev.apx.server.shared.Limits;
import dev.apx.server.shared.RequestTargets;
import dev.apx.server.shared.ServerConfig;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMessageDecoderResult;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Netty's request decoder (which already refuses bare LF, CL with TE, duplicate or non-numeric
 * Content-Length, bad chunk sizes, control characters in header values...), closed off where it is
 * lenient, and with apx's {@link Limits}. A refused request comes out as a request or body piece
 * whose decoder result failed, with a {@link RequestRejected} naming the status; everything the
 * client sends after it is dropped, and {@link ExchangeHandler} answers and closes.
 *
 * <p>What this adds (docs/security.md tables every case):
 * <ul>
 * <li>the request line: exactly {@code METHOD SP target SP HTTP/1.x} (Netty folds runs of spaces and
 *     tabs and accepts any version); targets as {@link RequestTargets} has them; HTTP/1.0 and HTTP/1.1 only
 *     (505 otherwise, decided as soon as the version's eight bytes are in, CRLF or not);</li>
 * <li>a second Host field; a Transfer-Encoding other than {@code chunked} ({@link TransferCodings});</li>
 * <li>obs-fold (a header line starting with SP or HT) is refused, not joined; a bare CR in the head
 *     is refused as soon as the byte after it is in ({@link HeadScan});</li>
 * <li>chunk extensions without a name ({@link ChunkLines});</li>
 * <li>header field count and size; a Content-Length or a counted body above --limit-max-body (413);</li>
 * <li>chunked bodies whose framing outweighs their data (long chunk extensions on tiny chunks);</li>
 * <li>the header read timeout: a request head that takes longer than --timeout-request-header closes
 *     the connection (slowloris). The keep-alive idle timer is separate, in ChannelSetup.</li>
 * </ul>
 * Event loop only, one instance per connection.
 */
public final class RequestDecoder extends HttpRequestDecoder {
    /** Chunk framing may exceed 16 bytes + twice the data per chunk by this much in total (Go's net/http rule). */
    private static final long MAX_CHUNK_OVERHEAD = 16 * 1024;

    private enum State { BEFORE_HEAD, IN_HEAD, IN_BODY, REJECTED }

    private final ServerConfig config;
    private final Limits limits;
    private final HeadRequests heads;
    private State state = State.BEFORE_HEAD;
    private boolean chunked;
    private long bodyBytes;
    private long chunkOverhead;
    private ScheduledFuture<?> headTimer;
    private final ChunkLines chunkLines = new ChunkLines();

    public RequestDecoder(ServerConfig config, HeadRequests heads) {
        super(new HttpDecoderConfig()
                .setMaxInitialLineLength(config.maxInitialLineLength())
                .setMaxHeaderSize(config.maxHeaderSize())
                .setMaxChunkSize(64 * 1024));
        this.config = config;
        this.limits = config.limits();
        this.heads = heads;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (state == State.REJECTED) {
            in.skipBytes(in.readableBytes());
            return;
        }
        State before = state;
        if (before != State.IN_BODY) {
            startHeadTimer(ctx);
            RequestRejected problem = HeadScan.problem(in, before == State.BEFORE_HEAD,
                    config.maxInitialLineLength() + config.maxHeaderSize() + 4);
            if (problem != null) {
                out.add(rejectedRequest(problem));
                reject(in);
                return;
            }
        }
        if (before == State.IN_BODY && chunked) {
            RequestRejected problem = chunkLines.scan(in);
            if (problem != null) {
                out.add(rejectedContent(problem));
                reject(in);
                return;
            }
        }
        int first = out.size();
        int start = in.readerIndex();
        super.decode(ctx, in, out);
        int consumed = in.readerIndex() - start;
        long bodyInCall = 0;
        int piecesInCall = 0;
        for (int i = first; i < out.size() && state != State.REJECTED; i++) {
            Object msg = out.get(i);
            if (msg instanceof HttpRequest request) {
                cancelHeadTimer();
                RequestRejected problem = request.decoderResult().isFailure() ? null : check(request);
                if (problem != null) {
                    request.setDecoderResult(DecoderResult.failure(problem));
                }
                if (request.decoderResult().isFailure()) {
                    dropAfter(out, i);
                    reject(in);
                    break;
                }
                heads.add(request.method().equals(HttpMethod.HEAD));
                state = State.IN_BODY;
                chunked = HttpUtil.isTransferEncodingChunked(request);
                if (chunked) {
                    chunkLines.start();
                }
                bodyBytes = 0;
                chunkOverhead = 0;
            }
            if (msg instanceof HttpContent content) {
                int size = content.content().readableBytes();
                bodyBytes += size;
                bodyInCall += size;
                piecesInCall++;
                RequestRejected problem = content.decoderResult().isFailure() ? null : checkBody();
                if (problem != null || content.decoderResult().isFailure()) {
                    if (problem != null) {
                        content.release();
                        out.set(i, rejectedContent(problem));
                    }
                    dropAfter(out, i);
                    reject(in);
                    break;
                }
                if (content instanceof LastHttpContent) {
                    state = State.BEFORE_HEAD;
                }
            }
        }
        if (state == State.BEFORE_HEAD && out.size() == first && consumed > 0 && !onlyControlCharacters(in, start, consumed)) {
            state = State.IN_HEAD; // the request line went in, the headers are still coming
        }
        if (before == State.IN_BODY && chunked) {
            chunkLines.consumed(consumed);
        }
        if (before == State.IN_BODY && chunked && state != State.REJECTED) {
            chunkOverhead = Math.max(0, chunkOverhead + (consumed - bodyInCall) - 2 * bodyInCall - 16L * piecesInCall);
            if (chunkOverhead > MAX_CHUNK_OVERHEAD) {
                out.add(rejectedContent(new RequestRejected(HttpResponseStatus.BAD_REQUEST,
                        "chunked body with more framing than data (chunk extensions)")));
                reject(in);
            }
        }
    }

    /**
     * The connection closed: Netty would report a half-received request as a failed message, but
     * there is nobody left to answer, and the app (if it has the request) hears of it as a disconnect.
     */
    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        in.skipBytes(in.readableBytes());
    }

    /** Called by Netty for the request line, before the headers. */
    @Override
    protected HttpMessage createMessage(String[] initialLine) throws Exception {
        String target = initialLine[1];
        String version = initialLine[2];
        if (!version.equals("HTTP/1.1") && !version.equals("HTTP/1.0")) {
            throw version.matches("HTTP/[0-9]\\.[0-9]")
                    ? new RequestRejected(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, "HTTP version " + version + " is not supported")
                    : new RequestRejected(HttpResponseStatus.BAD_REQUEST, "invalid HTTP version");
        }
        String problem = RequestTargets.problem(initialLine[0], target, true);
        if (problem != null) {
            throw new RequestRejected(HttpResponseStatus.BAD_REQUEST, problem);
        }
        return super.createMessage(initialLine);
    }

    /** Netty splits at runs of any whitespace; the target must sit between two single spaces. */
    @Override
    protected String splitSecondWordInitialLine(byte[] line, int start, int length) {
        if (start == 0 || line[start - 1] != ' ' || start + length >= line.length || line[start + length] != ' ') {
            throw new RequestRejected(HttpResponseStatus.BAD_REQUEST, "request line is not METHOD SP target SP version");
        }
        return super.splitSecondWordInitialLine(line, start, length);
    }

    private RequestRejected check(HttpRequest request) {
        if (request.decoderResult() instanceof HttpMessageDecoderResult result
                && result.initialLineLength() != request.method().name().length() + request.uri().length() + "  HTTP/1.1".length()) {
            return new RequestRejected(HttpResponseStatus.BAD_REQUEST, "request line is not METHOD SP target SP version");
        }
        if (request.headers().getAll(HttpHeaderNames.HOST).size() > 1) { // RFC 9112 3.2; a missing Host is served, as httptools does
            return new RequestRejected(HttpResponseStatus.BAD_REQUEST, "more than one Host header field");
        }
        String expect = request.headers().get(HttpHeaderNames.EXPECT);
        if (expect != null && request.protocolVersion().equals(HttpVersion.HTTP_1_1) && !expect.equalsIgnoreCase("100-continue")) {
            return new RequestRejected(HttpResponseStatus.EXPECTATION_FAILED, "unsupported Expect: " + expect); // RFC 9110 10.1.1
        }
        RequestRejected coding = TransferCodings.problem(request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING));
        if (coding != null) {
            return coding;
        }
        if (request.headers().size() > limits.requestFields()) {
            return new RequestRejected(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                    "more than " + limits.requestFields() + " header fields");
        }
        for (Map.Entry<String, String> header : request.headers()) {
            if (header.getKey().length() + 2 + header.getValue().length() > limits.requestFieldSize()) {
                return new RequestRejected(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                        "header field " + header.getKey() + " is longer than " + limits.requestFieldSize() + " bytes");
            }
        }
        if (limits.maxBody() > 0 && request.headers().contains(HttpHeaderNames.CONTENT_LENGTH)
                && HttpUtil.getContentLength(request, 0L) > limits.maxBody()) {
            return new RequestRejected(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "body longer than " + limits.maxBody() + " bytes");
        }
        return null;
    }

    private RequestRejected checkBody() {
        if (limits.maxBody() > 0 && bodyBytes > limits.maxBody()) {
            return new RequestRejected(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "body longer than " + limits.maxBody() + " bytes");
        }
        return null;
    }

    private static boolean onlyControlCharacters(ByteBuf in, int from, int length) {
        for (int i = from; i < from + length; i++) {
            if (!HeadScan.isControlOrSpace(in.getByte(i))) {
                return false;
            }
        }
        return true;
    }

    private void reject(ByteBuf in) {
        state = State.REJECTED;
        cancelHeadTimer();
        in.skipBytes(in.readableBytes());
    }

    private static void dropAfter(List<Object> out, int index) {
        while (out.size() > index + 1) {
            ReferenceCountUtil.release(out.remove(out.size() - 1));
        }
    }

    private HttpRequest rejectedRequest(RequestRejected problem) {
        HttpMessage request = createInvalidMessage();
        request.setDecoderResult(DecoderResult.failure(problem));
        return (HttpRequest) request;
    }

    private static LastHttpContent rejectedContent(RequestRejected problem) {
        LastHttpContent last = new DefaultLastHttpContent();
        last.setDecoderResult(DecoderResult.failure(problem));
        return last;
    }

    private void startHeadTimer(ChannelHandlerContext ctx) {
        if (headTimer == null) {
            headTimer = ctx.executor().schedule(() -> {
                headTimer = null;
                if (state == State.BEFORE_HEAD || state == State.IN_HEAD) {
                    Log.warning("Request head not complete after " + limits.headerTimeoutSeconds() + " s, closing the connection");
                    state = State.REJECTED;
                    ctx.close();
                }
            }, limits.headerTimeoutSeconds(), TimeUnit.SECONDS);
        }
    }

    private void cancelHeadTimer() {
        if (headTimer != null) {
            headTimer.cancel(false);
            headTimer = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        cancelHeadTimer();
        super.handlerRemoved0(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancelHeadTimer();
        super.channelInactive(ctx);
    }
}
