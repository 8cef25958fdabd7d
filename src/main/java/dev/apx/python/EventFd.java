package dev.apx.python;

import dev.apx.python.capi.Libc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A Linux eventfd: any thread can make it readable without the GIL ({@link #signal}), so Java can
 * wake an event loop that is waiting in select. The loop registers {@link #fd} with
 * {@code add_reader} and calls {@link #reset} when it fires.
 */
public final class EventFd implements AutoCloseable {
    private final int fd;
    private final MemorySegment one;
    private final Arena arena = Arena.ofShared();
    private final ThreadLocal<MemorySegment> readBuffers;

    public EventFd() {
        fd = Libc.eventfd(0, Libc.EFD_CLOEXEC | Libc.EFD_NONBLOCK);
        if (fd < 0) {
            throw new IllegalStateException("eventfd() failed");
        }
        one = Libc.one(arena);
        readBuffers = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(8));
    }

    public int fd() {
        return fd;
    }

    /** Makes the fd readable. Safe from any thread, with or without the GIL. */
    public void signal() {
        Libc.writeCounter(fd, one);
    }

    /** Makes the fd unreadable again (until the next signal). */
    public void reset() {
        Libc.readCounter(fd, readBuffers.get());
    }

    @Override
    public void close() {
        Libc.close(fd);
        arena.close();
    }
}
