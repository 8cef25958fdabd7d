package dev.apx.python.capi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The few libc calls apx needs beside libpython: an eventfd to wake the event loop without the GIL, and a
 * signal's disposition (only this package touches native code).
 */
public final class Libc {
    public static final int EFD_CLOEXEC = 0x80000;
    public static final int EFD_NONBLOCK = 0x800;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle EVENTFD = bind("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle WRITE = bind("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle READ = bind("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = bind("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle GETTID = bind("gettid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle SIGACTION = bind("sigaction", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SIGNAL = bind("signal", FunctionDescriptor.of(ADDRESS, JAVA_INT, ADDRESS));
    private static final long SIG_IGN = 1;
    private static final long SIGACTION_SIZE = 256; // glibc's struct sigaction is 152 bytes on x86_64 and aarch64; its handler comes first

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

    /** The calling thread's Linux thread id (its /proc/self/task entry). */
    public static int gettid() {
        try {
            return (int) GETTID.invokeExact();
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

    /**
     * Gives {@code signal} its default disposition if the process started with it ignored (what {@code nohup}
     * does to SIGHUP, and a shell to SIGINT of a job it starts in the background): HotSpot leaves an ignored
     * HUP, INT or TERM ignored and takes no handler for it.
     */
    public static void defaultIfIgnored(int signal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment current = arena.allocate(SIGACTION_SIZE);
            if ((int) SIGACTION.invokeExact(signal, MemorySegment.NULL, current) == 0 && current.get(ADDRESS, 0).address() == SIG_IGN) {
                MemorySegment ignored = (MemorySegment) SIGNAL.invokeExact(signal, MemorySegment.NULL); // SIG_DFL
            }
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
