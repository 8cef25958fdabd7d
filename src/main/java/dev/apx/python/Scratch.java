package dev.apx.python;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * Per-thread native memory for C-API arguments (C strings, argument arrays, out-parameters): a
 * bump allocator, reset with {@link #reset} to the {@link #mark} taken before use. Python code
 * run by a C call may call back into Java on the same thread; those nested uses allocate above
 * the caller's and give back only their own.
 *
 * <p>The calls a request makes take their memory by address ({@link #reserve}) and read and write
 * it with the static accessors here, so that none of them allocates a Java object for it (a
 * segment per slice was the largest single source of garbage per request on h2, docs/python-layer.md).
 */
final class Scratch {
    private static final long SIZE = 64 * 1024;
    /** All of the address space, to read and write memory the C API hands out by address. */
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final MemorySegment region = Arena.ofAuto().allocate(SIZE, 16);
    private final long base = region.address();
    private long top;

    long mark() {
        return top;
    }

    void reset(long mark) {
        top = mark;
    }

    /** The address of {@code bytes} of memory (not zeroed, 16-byte aligned), or 0 when they do not fit (the caller uses an arena). */
    long reserve(long bytes) {
        long aligned = (bytes + 15) & ~15L;
        if (top + aligned > SIZE) {
            return 0;
        }
        long address = base + top;
        top += aligned;
        return address;
    }

    /** {@code bytes} of zeroed memory, or null when they do not fit (the caller uses an arena). */
    MemorySegment allocate(long bytes) {
        long address = reserve(bytes);
        return address == 0 ? null : region.asSlice(address - base, bytes).fill((byte) 0);
    }

    static long getLong(long address) {
        return ALL.get(JAVA_LONG_UNALIGNED, address);
    }

    static void setLong(long address, long value) {
        ALL.set(JAVA_LONG_UNALIGNED, address, value);
    }

    static int getInt(long address) {
        return ALL.get(JAVA_INT_UNALIGNED, address);
    }

    static void setInt(long address, int value) {
        ALL.set(JAVA_INT_UNALIGNED, address, value);
    }

    static void write(long address, byte[] data) {
        MemorySegment.copy(data, 0, ALL, JAVA_BYTE, address, data.length);
    }

    static byte[] read(long address, long length) {
        byte[] data = new byte[Math.toIntExact(length)];
        MemorySegment.copy(ALL, JAVA_BYTE, address, data, 0, data.length);
        return data;
    }

    static String readUtf8(long address, long length) {
        return new String(read(address, length), StandardCharsets.UTF_8);
    }

    /** Writes {@code value} at {@code address} as ASCII and returns true, or false at its first non-ASCII char (then the caller encodes it). */
    static boolean writeAscii(long address, String value) {
        for (int i = 0, n = value.length(); i < n; i++) {
            char c = value.charAt(i);
            if (c >= 0x80) {
                return false;
            }
            ALL.set(JAVA_BYTE, address + i, (byte) c);
        }
        return true;
    }
}
