package dev.apx.python;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Per-thread native memory for C-API arguments (C strings, argument arrays, out-parameters): a
 * bump allocator, reset with {@link #reset} to the {@link #mark} taken before use. Python code
 * run by a C call may call back into Java on the same thread; those nested uses allocate above
 * the caller's and give back only their own.
 */
final class Scratch {
    private static final long SIZE = 64 * 1024;
    private final MemorySegment region = Arena.ofAuto().allocate(SIZE, 16);
    private long top;

    long mark() {
        return top;
    }

    void reset(long mark) {
        top = mark;
    }

    /** {@code bytes} of zeroed memory, or null when they do not fit (the caller uses an arena). */
    MemorySegment allocate(long bytes) {
        long aligned = (bytes + 15) & ~15L;
        if (top + aligned > SIZE) {
            return null;
        }
        MemorySegment slice = region.asSlice(top, bytes);
        top += aligned;
        return slice.fill((byte) 0);
    }
}
