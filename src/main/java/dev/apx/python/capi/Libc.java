package dev.apx.python.capi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** The few libc calls apx needs beside libpython: an eventfd to wake the event loop without the GIL. */
public final class Libc {
    public static final int EFD_CLOEXEC = 0x80000;
    public static final int EFD_NONBLOCK = 0x800;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle EVENTFD = bind("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle WRITE = bind("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle READ = bind("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = bind("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private Libc() {
    }

    private static MethodHandle bind(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new LibraryLoadException("libc has no " + name)), descriptor);
    }

    public static int eventfd(int initial, int flags) {
        try {
            return (int) EVENTFD.invokeExact(initial, flags);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    /** Adds {@code value} to an eventfd's counter; -1 on error (EAGAIN when it would overflow). */
    public static long writeCounter(int fd, MemorySegment eightBytes) {
        try {
            return (long) WRITE.invokeExact(fd, eightBytes, 8L);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    /** Reads and resets an eventfd's counter; -1 when it was zero (EAGAIN). */
    public static long readCounter(int fd, MemorySegment eightBytes) {
        try {
            return (long) READ.invokeExact(fd, eightBytes, 8L);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    public static int close(int fd) {
        try {
            return (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    /** Eight bytes of native memory holding 1, for eventfd writes. */
    public static MemorySegment one(Arena arena) {
        MemorySegment segment = arena.allocate(JAVA_LONG);
        segment.set(JAVA_LONG, 0, 1L);
        return segment;
    }
}
