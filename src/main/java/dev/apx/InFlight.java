package dev.apx;

import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.Response;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The requests of one {@link PythonApp} whose response has not ended, whoever sent them (in-process
 * calls, a servlet): {@link PythonApp#close} refuses new ones, waits for these, and cancels those
 * still running after the grace period, as the server's graceful shutdown does.
 */
final class InFlight {
    private final Set<Tracked> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** {@code app} counted: each response is tracked until it ends; refused (IllegalStateException) once closing. */
    HttpApp counted(HttpApp app, String name) {
        return (head, response) -> {
            if (closed) {
                throw new IllegalStateException("apx: " + name + " is closed");
            }
            Tracked tracked = new Tracked(response);
            open.add(tracked);
            if (closed) { // close() may have looked at the set before the add
                open.remove(tracked);
                throw new IllegalStateException("apx: " + name + " is closed");
            }
            try {
                tracked.exchange = app.open(head, tracked);
            } catch (RuntimeException e) {
                tracked.ended();
                throw e;
            }
            return new TrackedExchange(tracked);
        };
    }

    /** Refuses new requests; waits up to {@code graceMillis} for the open ones, then cancels them and waits a little more. */
    void close(long graceMillis) throws InterruptedException {
        closed = true;
        if (!await(graceMillis)) {
            for (Tracked tracked : open) {
                Exchange exchange = tracked.exchange;
                if (exchange != null) {
                    exchange.cancel();
                }
            }
            await(5000);
        }
    }

    private synchronized boolean await(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!open.isEmpty()) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(Math.min(left, 50));
        }
        return true;
    }

    int size() {
        return open.size();
    }

    /** A response that leaves the set when it ends, however it ends. */
    private final class Tracked implements Response {
        private final Response response;
        volatile Exchange exchange;
        private boolean trailersExpected;

        Tracked(Response response) {
            this.response = response;
        }

        void ended() {
            if (open.remove(this)) {
                synchronized (InFlight.this) {
                    InFlight.this.notifyAll();
                }
            }
        }

        @Override
        public void start(int status, List<String[]> headers, boolean trailers) {
            trailersExpected = trailers;
            response.start(status, headers, trailers);
        }

        @Override
        public void start(int status, String reason, List<String[]> headers, boolean trailers) {
            trailersExpected = trailers;
            response.start(status, reason, headers, trailers);
        }

        @Override
        public void body(byte[] data, boolean more) {
            try {
                response.body(data, more);
            } finally {
                if (!more && !trailersExpected) {
                    ended();
                }
            }
        }

        @Override
        public void file(Path path) throws java.io.IOException {
            try {
                response.file(path);
            } finally {
                if (!trailersExpected) {
                    ended();
                }
            }
        }

        @Override
        public void file(Path path, long offset, long count) throws java.io.IOException {
            try {
                response.file(path, offset, count);
            } finally {
                if (!trailersExpected) {
                    ended();
                }
            }
        }

        @Override
        public void trailers(List<String[]> headers) {
            try {
                response.trailers(headers);
            } finally {
                ended();
            }
        }

        @Override
        public void logClientAs(String hostAndPort) {
            response.logClientAs(hostAndPort);
        }

        @Override
        public boolean bodyIgnored() {
            return response.bodyIgnored();
        }

        @Override
        public boolean isWritable() {
            return response.isWritable();
        }

        @Override
        public void pauseReading(boolean paused) {
            response.pauseReading(paused);
        }

        @Override
        public void fail() {
            try {
                response.fail();
            } finally {
                ended();
            }
        }

        @Override
        public void abort() {
            try {
                response.abort();
            } finally {
                ended();
            }
        }
    }

    /** The request's side: a client gone ends it too (the app's later sends are dropped, no response end follows). */
    private record TrackedExchange(Tracked tracked) implements Exchange {
        @Override
        public void body(byte[] chunk, boolean last) {
            tracked.exchange.body(chunk, last);
        }

        @Override
        public void readComplete() {
            tracked.exchange.readComplete();
        }

        @Override
        public void disconnected() {
            try {
                tracked.exchange.disconnected();
            } finally {
                tracked.ended();
            }
        }

        @Override
        public void writable() {
            tracked.exchange.writable();
        }

        @Override
        public void cancel() {
            tracked.exchange.cancel();
        }
    }
}
