package dev.apx;

import dev.apx.server.api.Response;

import dev.apx.server.api.Exchange;


import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link Response} of {@link PythonApp#stream}: the head completes the future, body chunks
 * queue for the reader of {@link StreamedResponse#body()}. Above {@link #HIGH_WATER} unread bytes
 * it is not writable (the app's send waits); the reader's draining calls {@link Exchange#writable}.
 */
final class StreamingResponse implements Response {
    static final int HIGH_WATER = 256 * 1024;
    private final PythonFuture<StreamedResponse> head;
    private final boolean ignoreMethodBody;
    private final ArrayDeque<byte[]> chunks = new ArrayDeque<>();
    private long queued;
    private boolean ended;
    private boolean broken;
    private boolean closedByReader;
    private boolean waitingApp;
    private boolean ignoreBody;
    private volatile Exchange exchange;

    StreamingResponse(PythonFuture<StreamedResponse> head, boolean headRequest) {
        this.head = head;
        this.ignoreMethodBody = headRequest;
    }

    void exchange(Exchange opened) {
        boolean wake;
        synchronized (this) {
            this.exchange = opened;
            wake = waitingApp && queued < HIGH_WATER; // the reader drained before the exchange was known
            waitingApp &= !wake;
        }
        if (wake) {
            opened.writable();
        }
    }

    @Override
    public synchronized void start(int status, List<String[]> headers, boolean trailers) {
        List<Header> list = new ArrayList<>(headers.size());
        for (String[] header : headers) {
            list.add(new Header(header[0], header[1]));
        }
        ignoreBody = ignoreMethodBody || status < 200 || status == 204 || status == 304;
        head.completeWithResult(new StreamedResponse(status, list, new Body()));
    }

    @Override
    public synchronized boolean bodyIgnored() {
        return ignoreBody;
    }

    @Override
    public synchronized void body(byte[] data, boolean more) {
        if (!closedByReader && !ignoreBody && data.length > 0) {
            chunks.add(data);
            queued += data.length;
        }
        if (!more) {
            ended = true;
        }
        notifyAll();
    }

    @Override
    public void file(Path path) throws IOException {
        file(path, 0, Files.size(path));
    }

    @Override
    public void file(Path path, long offset, long count) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "r")) {
            file.seek(offset);
            for (long left = count; left > 0; ) {
                byte[] chunk = new byte[(int) Math.min(64 * 1024, left)];
                file.readFully(chunk);
                left -= chunk.length;
                body(chunk, left > 0);
            }
            if (count == 0) {
                body(new byte[0], false);
            }
        }
    }

    @Override
    public synchronized void trailers(List<String[]> headers) {
        ended = true; // a stream has no place for trailers: dropped
        notifyAll();
    }

    @Override
    public synchronized boolean isWritable() {
        boolean writable = queued < HIGH_WATER;
        waitingApp |= !writable;
        return writable;
    }

    @Override
    public void pauseReading(boolean paused) {
        // the whole request body was handed over with the request
    }

    @Override
    public void fail() {
        head.completeWithResult(new StreamedResponse(500, List.of(new Header("content-type", "text/plain; charset=utf-8")),
                new java.io.ByteArrayInputStream("Internal Server Error".getBytes(StandardCharsets.UTF_8))));
    }

    @Override
    public synchronized void abort() {
        broken = true;
        ended = true;
        head.completeExceptionally(new IOException("apx: the app did not complete its response (its error is logged)"));
        notifyAll();
    }

    /** The reader's side. */
    private final class Body extends InputStream {
        private byte[] current;
        private int at;

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            if (current == null || at == current.length) {
                if (!next()) {
                    return -1;
                }
            }
            int n = Math.min(length, current.length - at);
            System.arraycopy(current, at, buffer, offset, n);
            at += n;
            return n;
        }

        private boolean next() throws IOException {
            boolean wake;
            synchronized (StreamingResponse.this) {
                while (chunks.isEmpty() && !ended) {
                    try {
                        StreamingResponse.this.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new java.io.InterruptedIOException("interrupted while waiting for the app");
                    }
                }
                if (chunks.isEmpty()) {
                    if (broken) {
                        throw new IOException("apx: the app broke off its response");
                    }
                    return false;
                }
                current = chunks.poll();
                at = 0;
                queued -= current.length;
                wake = waitingApp && queued < HIGH_WATER;
                if (wake) {
                    waitingApp = false;
                }
            }
            Exchange opened = exchange;
            if (wake && opened != null) {
                opened.writable(); // outside this lock: the app's side holds its own while it calls in here
            }
            return true;
        }

        @Override
        public void close() {
            boolean early;
            synchronized (StreamingResponse.this) {
                early = !ended && !closedByReader;
                closedByReader = true;
                chunks.clear();
                queued = 0;
            }
            Exchange opened = exchange;
            if (early && opened != null) {
                opened.disconnected();
            }
        }
    }
}
