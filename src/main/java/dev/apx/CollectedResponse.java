package dev.apx;

import dev.apx.server.api.Response;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link Response} of an in-process call: what the app sends is kept in memory and completes
 * {@code future} as an {@link AppResponse} at the end of the body (or of the trailers). No socket,
 * so it is always writable and never pauses.
 */
final class CollectedResponse implements Response {
    private final PythonFuture<AppResponse> future;
    private final boolean head;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int status;
    private List<Header> headers = List.of();
    private boolean trailersExpected;
    private boolean ignoreBody;

    CollectedResponse(PythonFuture<AppResponse> future, boolean head) {
        this.future = future;
        this.head = head;
    }

    @Override
    public synchronized void start(int status, List<String[]> headers, boolean trailers) {
        this.status = status;
        List<Header> list = new ArrayList<>(headers.size());
        for (String[] header : headers) {
            list.add(new Header(header[0], header[1]));
        }
        this.headers = list;
        this.trailersExpected = trailers;
        this.ignoreBody = head || status < 200 || status == 204 || status == 304;
    }

    @Override
    public synchronized boolean bodyIgnored() {
        return ignoreBody;
    }

    @Override
    public synchronized void body(byte[] data, boolean more) {
        if (!ignoreBody) {
            body.writeBytes(data);
        }
        if (!more && !trailersExpected) {
            complete(List.of());
        }
    }

    @Override
    public void file(Path path) throws IOException {
        file(path, 0, Files.size(path));
    }

    @Override
    public synchronized void file(Path path, long offset, long count) throws IOException {
        if (!ignoreBody) {
            try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "r")) {
                byte[] bytes = new byte[Math.toIntExact(count)];
                file.seek(offset);
                file.readFully(bytes);
                body.writeBytes(bytes);
            }
        }
        if (!trailersExpected) {
            complete(List.of());
        }
    }

    @Override
    public synchronized void trailers(List<String[]> trailers) {
        List<Header> list = new ArrayList<>(trailers.size());
        for (String[] header : trailers) {
            list.add(new Header(header[0], header[1]));
        }
        complete(list);
    }

    private void complete(List<Header> trailers) {
        future.completeWithResult(new AppResponse(status, headers, body.toByteArray(), trailers));
    }

    @Override
    public boolean isWritable() {
        return true;
    }

    @Override
    public void pauseReading(boolean paused) {
        // the whole body was handed over with the request
    }

    /** As the server's: a plain 500 (the app failed before it started a response; its traceback is logged). */
    @Override
    public void fail() {
        future.completeWithResult(new AppResponse(500, List.of(new Header("content-type", "text/plain; charset=utf-8")),
                "Internal Server Error".getBytes(StandardCharsets.UTF_8), List.of()));
    }

    @Override
    public void abort() {
        future.completeExceptionally(new IOException("apx: the app did not complete its response (its error is logged)"));
    }
}
