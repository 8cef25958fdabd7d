package dev.apx.python.capi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A copy of a libc's {@code environ} ("NAME=value" byte strings, kept as bytes: an environment need
 * not be valid in any charset), to give to another namespace's libc before its runtime starts.
 */
final class ProcessEnvironment {
    private final List<byte[]> entries;

    private ProcessEnvironment(List<byte[]> entries) {
        this.entries = entries;
    }

    /** The strings {@code environVariable} (the address of a libc's {@code char **environ}) points at now. */
    static ProcessEnvironment of(MemorySegment environVariable) {
        MemorySegment array = environVariable.reinterpret(ADDRESS.byteSize()).get(ADDRESS, 0);
        List<byte[]> entries = new ArrayList<>();
        if (!array.equals(MemorySegment.NULL)) {
            MemorySegment pointers = array.reinterpret(Long.MAX_VALUE);
            for (long i = 0; ; i++) {
                MemorySegment entry = pointers.getAtIndex(ADDRESS, i);
                if (entry.equals(MemorySegment.NULL)) {
                    break;
                }
                entries.add(bytesOf(entry.reinterpret(Long.MAX_VALUE)));
            }
        }
        return new ProcessEnvironment(List.copyOf(entries));
    }

    /**
     * Points the libc variable at {@code environVariable} to a copy of these strings. Only before any
     * thread uses that libc. The copy is never freed: libc keeps pointers into it (putenv's contract)
     * for the namespace's life, which is the process's.
     */
    void installIn(MemorySegment environVariable) {
        Arena forever = Arena.global();
        MemorySegment array = forever.allocate(ADDRESS, entries.size() + 1L);
        for (int i = 0; i < entries.size(); i++) {
            byte[] entry = entries.get(i);
            MemorySegment copy = forever.allocate(entry.length + 1L);
            MemorySegment.copy(entry, 0, copy, JAVA_BYTE, 0, entry.length);
            copy.set(JAVA_BYTE, entry.length, (byte) 0);
            array.setAtIndex(ADDRESS, i, copy);
        }
        array.setAtIndex(ADDRESS, entries.size(), MemorySegment.NULL);
        environVariable.reinterpret(ADDRESS.byteSize()).set(ADDRESS, 0, array);
    }

    private static byte[] bytesOf(MemorySegment cString) {
        long length = 0;
        while (cString.get(JAVA_BYTE, length) != 0) {
            length++;
        }
        return cString.asSlice(0, length).toArray(JAVA_BYTE);
    }
}
