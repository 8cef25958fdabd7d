package dev.apx.servlet;

import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpApp;
import dev.apx.app.PercentDecoding;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.Response;
import dev.apx.server.tls.TlsSession;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One servlet request as the app side's {@link Exchange} and {@link Response}: the container's
 * non-blocking streams on one side, apx's HTTP contract on the other.
 *
 * <p>Request body: read while the container says it is ready, handed over in chunks; when the
 * app's queue is full ({@link #pauseReading}) reading stops, and resumes on a container thread
 * ({@link AsyncContext#start}) once the app has taken it. Response: what the app sends queues
 * here and is written while the container says it can take more; above {@link #HIGH_WATER}
 * queued bytes the app's {@code send()} waits until the container has written it
 * ({@link Exchange#writable}). A failed read or write (the client left) is {@code http.disconnect}.
 *
 * <p>Locks: the write side is guarded by {@code this}, the read side by {@link #readLock}. The app's
 * side calls in holding the exchange's own lock, so nothing here calls the exchange while holding
 * {@code this}: that order would deadlock with the app's thread.
 */
final class ServletExchange implements Response {
    static final int HIGH_WATER = 64 * 1024;
    private static final int READ_CHUNK = 16 * 1024;
    private static final byte[] NO_BODY = new byte[0];

    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final AsyncContext async;
    private volatile Exchange exchange;
    private final AtomicBoolean gone = new AtomicBoolean();

    private final Object readLock = new Object();
    private ServletInputStream in;
    private volatile boolean readPaused;
    private boolean lastDelivered; // guarded by readLock

    private ServletOutputStream out;
    private final ArrayDeque<Object> pending = new ArrayDeque<>(); // byte[] or FilePart
    private long pendingBytes;
    private boolean trailersExpected;
    private boolean ignoreBody;
    private boolean ended;
    private boolean completed;
    private boolean flushWanted;
    private boolean appWaiting;
    private final Map<String, String> trailerFields = Collections.synchronizedMap(new LinkedHashMap<>());

    ServletExchange(HttpServletRequest request, HttpServletResponse response, AsyncContext async) {
        this.request = request;
        this.response = response;
        this.async = async;
    }

    /** Hands the request to {@code http}; throws IllegalStateException when the app is closing. */
    void open(HttpApp http) throws IOException {
        RequestHead head = head(request);
        in = request.getInputStream();
        out = response.getOutputStream();
        async.addListener(new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
            }

            @Override
            public void onTimeout(AsyncEvent event) {
                clientGone();
            }

            @Override
            public void onError(AsyncEvent event) {
                clientGone();
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
            }
        });
        // before the app can send: the app's thread may write as soon as open() has queued the request
        out.setWriteListener(new WriteListener() {
            @Override
            public void onWritePossible() {
                writePending();
            }

            @Override
            public void onError(Throwable error) {
                clientGone();
            }
        });
        exchange = http.open(head, this);
        if (head.bodyless()) {
            exchange.body(NO_BODY, true);
            exchange.readComplete();
            return;
        }
        in.setReadListener(new ReadListener() {
            @Override
            public void onDataAvailable() {
                readAvailable();
            }

            @Override
            public void onAllDataRead() {
                deliverEnd();
            }

            @Override
            public void onError(Throwable error) {
                clientGone();
            }
        });
    }

    /** The request line and headers as the app side takes them (also a WebSocket upgrade's). */
    static RequestHead head(HttpServletRequest request) {
        String uri = request.getRequestURI();
        String query = request.getQueryString();
        if (query != null) {
            uri += "?" + query;
        }
        String protocol = request.getProtocol();
        String version = protocol.equals("HTTP/2.0") ? "HTTP/2" : protocol.equals("HTTP/3.0") ? "HTTP/3" : protocol;
        List<String[]> headers = new ArrayList<>();
        for (String name : Collections.list(request.getHeaderNames())) {
            for (String value : Collections.list(request.getHeaders(name))) {
                headers.add(new String[]{name, value});
            }
        }
        long length = request.getContentLengthLong();
        boolean bodyless = length == 0 || length < 0 && request.getHeader("transfer-encoding") == null && protocol.startsWith("HTTP/1");
        TlsSession tls = request.isSecure() ? TlsSession.of((String) request.getAttribute("jakarta.servlet.request.secure_protocol"),
                (String) request.getAttribute("jakarta.servlet.request.cipher_suite"),
                (X509Certificate[]) request.getAttribute("jakarta.servlet.request.X509Certificate")) : null;
        return new RequestHead(request.getMethod(), uri, version, headers, address(request.getRemoteAddr(), request.getRemotePort()),
                address(request.getLocalAddr(), request.getLocalPort()), null, bodyless, tls);
    }

    private static InetSocketAddress address(String ip, int port) {
        if (ip == null) {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.ofLiteral(ip.startsWith("[") ? ip.substring(1, ip.length() - 1) : ip), port);
        } catch (IllegalArgumentException notAnAddress) { // a Unix socket's, a proxy's name
            return null;
        }
    }

    /** The context path as the app's root path has it: percent-decoded, as the servlet path already is. */
    static String decodedPrefix(String contextPath) {
        return contextPath.indexOf('%') < 0 ? contextPath : PercentDecoding.decode(contextPath, StandardCharsets.UTF_8);
    }

    // ---- the request body (container threads)

    private void readAvailable() {
        synchronized (readLock) {
            try {
                byte[] buffer = new byte[READ_CHUNK];
                while (!lastDelivered && !readPaused && in.isReady()) {
                    int read = in.read(buffer);
                    if (read < 0) {
                        break;
                    }
                    boolean last = in.isFinished();
                    if (read > 0 || last) {
                        lastDelivered = last;
                        exchange.body(java.util.Arrays.copyOf(buffer, read), last);
                    }
                }
                if (!lastDelivered && in.isFinished()) {
                    lastDelivered = true;
                    exchange.body(NO_BODY, true);
                }
            } catch (IOException e) {
                clientGone();
                return;
            } catch (IllegalStateException over) { // a resume after the response completed: nothing left to read
                return;
            }
        }
        exchange.readComplete();
    }

    private void deliverEnd() {
        synchronized (readLock) {
            if (!lastDelivered) {
                lastDelivered = true;
                exchange.body(NO_BODY, true);
            }
        }
        exchange.readComplete();
    }

    @Override
    public void pauseReading(boolean paused) {
        boolean resume = readPaused && !paused;
        readPaused = paused;
        if (resume && !gone.get()) {
            // not here: the app's thread is inside receive(); the container stopped calling
            // onDataAvailable when this stopped reading while it was ready
            async.start(this::readAvailable);
        }
    }

    // ---- the response (the app's threads, and the container's in onWritePossible)

    @Override
    public synchronized void start(int status, List<String[]> headers, boolean trailers) {
        if (gone.get()) {
            return;
        }
        response.setStatus(status);
        for (String[] header : headers) {
            String name = header[0].toLowerCase(Locale.ROOT);
            switch (name) {
                case "content-length" -> response.setContentLengthLong(Long.parseLong(header[1].strip()));
                case "transfer-encoding", "connection", "keep-alive" -> {
                    // hop-by-hop: the container frames the response
                }
                default -> response.addHeader(header[0], header[1]);
            }
        }
        trailersExpected = trailers;
        if (trailers) {
            response.setTrailerFields(() -> trailerFields);
        }
        ignoreBody = request.getMethod().equals("HEAD") || status < 200 || status == 204 || status == 304;
    }

    @Override
    public synchronized boolean bodyIgnored() {
        return ignoreBody;
    }

    @Override
    public void body(byte[] data, boolean more) {
        synchronized (this) {
            if (!ignoreBody && data.length > 0) {
                pending.add(data);
                pendingBytes += data.length;
            }
            if (!more && !trailersExpected) {
                ended = true;
            }
            flushWanted |= more;
        }
        writePending();
    }

    @Override
    public void file(Path path) throws IOException {
        file(path, 0, java.nio.file.Files.size(path));
    }

    @Override
    public void file(Path path, long offset, long count) throws IOException {
        FilePart part = new FilePart(new RandomAccessFile(path.toFile(), "r"), offset, count);
        synchronized (this) {
            if (ignoreBody) {
                part.close();
            } else {
                pending.add(part);
                pendingBytes += count;
            }
            ended = !trailersExpected;
        }
        writePending();
    }

    @Override
    public void trailers(List<String[]> headers) {
        for (String[] header : headers) {
            trailerFields.merge(header[0].toLowerCase(Locale.ROOT), header[1], (a, b) -> a + ", " + b);
        }
        synchronized (this) {
            ended = true;
        }
        writePending();
    }

    @Override
    public synchronized boolean isWritable() {
        boolean writable = pendingBytes < HIGH_WATER;
        if (!writable) {
            appWaiting = true;
        }
        return writable;
    }

    /** As apx's server: a plain 500 when nothing was sent yet; else the response cannot be completed. */
    @Override
    public void fail() {
        synchronized (this) {
            if (!response.isCommitted() && !gone.get()) {
                response.reset();
                response.setStatus(500);
                response.setContentType("text/plain; charset=utf-8");
                pending.clear();
                byte[] text = "Internal Server Error".getBytes(StandardCharsets.UTF_8);
                response.setContentLength(text.length);
                pending.add(text);
                pendingBytes = text.length;
                ended = true;
                trailersExpected = false;
            }
        }
        if (response.isCommitted()) {
            abort();
        } else {
            writePending();
        }
    }

    /**
     * The app broke off its response. The Servlet API has no way to reset the connection: with a
     * Content-Length the container closes it short of the length (the client sees the truncation);
     * a chunked response ends where the app stopped.
     */
    @Override
    public void abort() {
        synchronized (this) {
            if (completed) {
                return;
            }
            completed = true;
            closeFiles();
        }
        async.complete();
    }

    /** Writes what is queued while the container can take it; completes the request after the end. */
    private void writePending() {
        boolean notify;
        boolean broken = false;
        synchronized (this) {
            if (completed || gone.get()) {
                return;
            }
            try {
                while (!pending.isEmpty() && out.isReady()) {
                    Object next = pending.peek();
                    if (next instanceof byte[] chunk) {
                        pending.poll();
                        pendingBytes -= chunk.length;
                        out.write(chunk);
                    } else {
                        FilePart part = (FilePart) next;
                        byte[] chunk = part.next();
                        if (chunk == null) {
                            pending.poll();
                            part.close();
                        } else {
                            pendingBytes -= chunk.length;
                            out.write(chunk);
                        }
                    }
                }
                if (pending.isEmpty()) {
                    if (ended) {
                        // only once the last write is done: completing while isReady() is false (after the
                        // flush check below) makes Jetty abort the connection; when false, onWritePossible comes back here
                        if (out.isReady()) {
                            completed = true;
                            async.complete();
                        }
                    } else if (flushWanted && out.isReady()) {
                        flushWanted = false; // a streamed part goes out now, not when the buffer fills
                        out.flush();
                    }
                }
            } catch (IOException | IllegalStateException e) {
                broken = true; // the client is gone: told below, outside this lock
            }
            notify = !broken && appWaiting && pendingBytes < HIGH_WATER;
            if (notify) {
                appWaiting = false;
            }
        }
        if (broken) {
            clientGone();
        } else if (notify) {
            exchange.writable();
        }
    }

    /** The client left (a failed read or write, the container's error): {@code http.disconnect}, once. */
    private void clientGone() {
        if (!gone.compareAndSet(false, true)) {
            return;
        }
        boolean complete;
        synchronized (this) {
            closeFiles();
            pending.clear();
            pendingBytes = 0;
            complete = !completed;
            completed = true;
        }
        Exchange current = exchange;
        if (current != null) {
            current.disconnected();
        }
        if (complete) {
            try {
                async.complete();
            } catch (IllegalStateException alreadyOver) {
                // the container ended the request itself
            }
        }
    }

    private void closeFiles() {
        for (Object part : pending) {
            if (part instanceof FilePart file) {
                file.close();
            }
        }
    }

    /** A file range still to send, read a chunk at a time as the container takes it. */
    private static final class FilePart {
        private static final int CHUNK = 64 * 1024;
        private final RandomAccessFile file;
        private long left;

        FilePart(RandomAccessFile file, long offset, long count) throws IOException {
            this.file = file;
            this.left = count;
            file.seek(offset);
        }

        byte[] next() throws IOException {
            if (left <= 0) {
                return null;
            }
            byte[] chunk = new byte[(int) Math.min(CHUNK, left)];
            file.readFully(chunk);
            left -= chunk.length;
            return chunk;
        }

        void close() {
            try {
                file.close();
            } catch (IOException ignored) {
                // read-only
            }
        }
    }
}
