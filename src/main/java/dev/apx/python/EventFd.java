package dev.apx.python;

import dev.apx.python.capi.Libc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Linux eventfd: any thread can make it readable without the GIL ({@link #signal}), so Java can
 * wake an event loop that is waiting in select. The loop registers {@link #fd} with
 * {@code add_reader} and calls {@link #reset} when it fires.
 *
 * <p>A signal may race {@link #close} (a connection's last completion arriving while the server
 * stops): it then does nothing. {@code close} waits for signals already writing, so the number is
 * never closed under one of them and a write can never land on a file that reuses the number.
 */
public final class EventFd implements AutoCloseable {
    private static final int CLOSED = 1 << 30;

    private final int fd;
    // Auto arenas: freed by the GC once this object is gone, so close() has no arena to close
    // while a signalling thread still holds a segment in a downcall.
    private final MemorySegment one = Libc.one(Arena.ofAuto());
    private final ThreadLocal<MemorySegment> readBuffers = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(8));
    /** Signals and resets in flight, plus {@link #CLOSED} once closed. */
    private final AtomicInteger state = new AtomicInteger();

    public EventFd() {
        fd = Libc.eventfd(0, Libc.EFD_CLOEXEC | Libc.EFD_NONBLOCK);
        if (fd < 0) {
            throw new IllegalStateException("eventfd() failed");
        }
    }

    public int fd() {
        return fd;
    }

    /** Makes the fd readable. Safe from any thread, with or without the GIL; a no-op once closed. */
    public void signal() {
        if (enter()) {
            try {
                Libc.writeCounter(fd, one);
            } finally {
                state.decrementAndGet();
            }
        }
    }

    /** Makes the fd unreadable again (until the next signal); a no-op once closed. */
    public void reset() {
        if (enter()) {
            try {
                Libc.readCounter(fd, readBuffers.get());
            } finally {
                state.decrementAndGet();
            }
        }
    }

    /** Counts a use in; false (and not counted) once closed. */
    private boolean enter() {
        if ((state.incrementAndGet() & CLOSED) == 0) {
            return true;
        }
        state.decrementAndGet();
        return false;
    }

    @Override
    public void close() {
        int previous = state.getAndUpdate(s -> s | CLOSED);
        if ((previous & CLOSED) != 0) {
            return;
        }
        while (state.get() != CLOSED) { // a signal already past its check finishes its write first
            Thread.onSpinWait();
        }
        Libc.close(fd);
    }
}
