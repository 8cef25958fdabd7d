package dev.apx.python.capi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Keeps the pthread keys of each libc copy apart. Every namespace has its own libc with its own
 * registry of {@code pthread_key_create} keys, but the per-thread slots those keys index live in
 * the one thread descriptor the creating libc made, shared by all copies: without this, CPython's
 * first key in a new namespace gets the index of one the JVM holds, and {@code PyGILState_Ensure}
 * reads the JVM's value as a thread state (a crash in {@code take_gil}).
 *
 * <p>Namespace {@code n} (1..15) owns keys {@code [1024 - 64n, 1024 - 64(n-1))}, two whole
 * second-level blocks of 32 slots: the base libc holds those indices (so the JVM and every library
 * it loads later never get them), and the namespace's libc holds every index except those (so
 * its CPython and extensions get keys from its range only, and fail with EAGAIN rather than
 * spill into another's).
 */
final class PthreadKeys {
    static final int KEYS_MAX = 1024; // PTHREAD_KEYS_MAX
    static final int RANGE = 64;
    private static final int BLOCK = 32; // PTHREAD_KEY_2NDLEVEL_SIZE

    private static final Linker LINKER = Linker.nativeLinker();
    private static final FunctionDescriptor CREATE = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    private static final FunctionDescriptor DELETE = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
    private static final FunctionDescriptor SET = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS);
    private static final MethodHandle BASE_CREATE = base("pthread_key_create", CREATE);
    private static final MethodHandle BASE_DELETE = base("pthread_key_delete", DELETE);
    private static final MethodHandle BASE_SET = base("pthread_setspecific", SET);
    private static final MethodHandle BASE_GET = base("pthread_getspecific", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    private static final MethodHandle ANY_CREATE = LINKER.downcallHandle(CREATE);
    private static final MethodHandle ANY_DELETE = LINKER.downcallHandle(DELETE);
    private static final MemorySegment NON_NULL = MemorySegment.ofAddress(1);

    private static final int KEY_SLOT = 16; // sizeof(struct pthread_key_struct)
    private static final MemorySegment BASE_KEYS = baseKeyTable();
    private static final VarHandle SEQ = JAVA_LONG.varHandle();

    private static final BitSet reservedInBase = new BitSet(KEYS_MAX);

    private PthreadKeys() {
    }

    private static MethodHandle base(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new LibraryLoadException("libc has no " + name)), descriptor);
    }

    /** The first key of namespace {@code n}'s range. */
    static int low(int namespace) {
        return KEYS_MAX - RANGE * namespace;
    }

    /**
     * Holds namespace {@code n}'s range in the base libc. Runtime 0 and the JVM create keys in the base libc at any
     * time (a Rust extension's first thread-local, while runtime 0 imports beside a starting runtime), so the range's
     * slots are taken directly, as {@code pthread_key_create} takes a free one, without holding any other key on the
     * way; only where glibc's key table does not have the layout this knows, by creating keys up to the range and
     * giving back the ones below (then a base key created meanwhile can fail with EAGAIN: Rust aborts "out of TLS keys").
     */
    static synchronized void reserveInBase(int namespace) {
        int low = low(namespace);
        if (reservedInBase.get(low)) {
            return;
        }
        BitSet got = BASE_KEYS != null ? claimInTable(low) : claimByCreating(low);
        if (got.cardinality() != RANGE) {
            throw new LibraryLoadException("pthread keys " + low + ".." + (low + RANGE - 1) + " are already in use in this"
                    + " process (" + (RANGE - got.cardinality()) + " of them), so runtime " + namespace + " cannot have them");
        }
        reservedInBase.or(got);
    }

    /** Marks each free slot of {@code [low, low + RANGE)} in the base libc's table used, as pthread_key_create does (no destructor). */
    private static BitSet claimInTable(int low) {
        BitSet got = new BitSet(KEYS_MAX);
        for (int index = low; index < low + RANGE; index++) {
            long offset = (long) index * KEY_SLOT;
            while (true) {
                long seq = (long) SEQ.getVolatile(BASE_KEYS, offset);
                if ((seq & 1) != 0) {
                    break; // in use: told by the caller
                }
                if (SEQ.compareAndSet(BASE_KEYS, offset, seq, seq + 1)) {
                    BASE_KEYS.set(ADDRESS, offset + Long.BYTES, MemorySegment.NULL);
                    got.set(index);
                    break;
                }
            }
        }
        return got;
    }

    private static BitSet claimByCreating(int low) {
        List<Integer> lower = new ArrayList<>();
        BitSet got = new BitSet(KEYS_MAX);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocate(JAVA_INT);
            while (true) {
                int status = (int) BASE_CREATE.invokeExact(key, MemorySegment.NULL);
                if (status != 0) {
                    break; // EAGAIN: every index is taken
                }
                int index = key.get(JAVA_INT, 0);
                if (index >= low && index < low + RANGE) {
                    got.set(index);
                    if (index == low + RANGE - 1) {
                        break;
                    }
                } else {
                    lower.add(index); // below or above the range: given back
                }
            }
            for (int index : lower) {
                int ignored = (int) BASE_DELETE.invokeExact(index);
            }
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
        return got;
    }

    /**
     * The base libc's key table ({@code struct pthread_key_struct __pthread_keys[PTHREAD_KEYS_MAX]}: a sequence
     * number, odd while the key is in use, and a destructor), when its libthread_db descriptor says it has that
     * layout: 128-bit elements, 1024 of them. Null otherwise.
     */
    private static MemorySegment baseKeyTable() {
        var lookup = LINKER.defaultLookup();
        var table = lookup.find("__pthread_keys");
        var layout = lookup.find("_thread_db___pthread_keys");
        if (table.isEmpty() || layout.isEmpty()) {
            return null;
        }
        MemorySegment described = layout.get().reinterpret(3L * Integer.BYTES);
        boolean known = described.getAtIndex(JAVA_INT, 0) == KEY_SLOT * Byte.SIZE && described.getAtIndex(JAVA_INT, 1) == KEYS_MAX;
        return known ? table.get().reinterpret((long) KEYS_MAX * KEY_SLOT) : null;
    }

    /** In the namespace's own libc: holds every key index except the namespace's range. */
    static void confineNamespace(LibPython lib, int namespace) {
        MemorySegment create = lib.require("pthread_key_create");
        MemorySegment delete = lib.require("pthread_key_delete");
        int low = low(namespace);
        int inRange = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocate(JAVA_INT);
            List<Integer> range = new ArrayList<>();
            while ((int) ANY_CREATE.invokeExact(create, key, MemorySegment.NULL) == 0) {
                int index = key.get(JAVA_INT, 0);
                if (index >= low && index < low + RANGE) {
                    range.add(index);
                }
            }
            for (int index : range) {
                if ((int) ANY_DELETE.invokeExact(delete, index) == 0) {
                    inRange++;
                }
            }
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
        if (inRange != RANGE) {
            throw new LibraryLoadException("runtime " + namespace + "'s libc already holds " + (RANGE - inRange)
                    + " of its pthread keys " + low + ".." + (low + RANGE - 1));
        }
    }

    /**
     * The current thread's values of the base libc's keys of the first block (0..31), where the
     * JVM's own keys are. A library loaded into a new namespace may create and set keys from its
     * constructor, before {@link #confineNamespace} can run: libpython3.13's (mimalloc's) takes key
     * 0 of its fresh libc and sets it on the loading thread, over the JVM's key 0, which the JVM's
     * signal handler reads to find its thread (a crash at the next implicit null check).
     */
    static MemorySegment[] saveFirstBlock() {
        MemorySegment[] values = new MemorySegment[BLOCK];
        try {
            for (int key = 0; key < BLOCK; key++) {
                values[key] = (MemorySegment) BASE_GET.invokeExact(key);
            }
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
        return values;
    }

    /** Puts back what {@link #saveFirstBlock} read, with the base libc's sequence numbers (keys it does not hold are refused: ignored). */
    static void restoreFirstBlock(MemorySegment[] values) {
        try {
            for (int key = 0; key < BLOCK; key++) {
                int ignored = (int) BASE_SET.invokeExact(key, values[key]);
            }
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    /**
     * Makes the base libc allocate the current thread's second-level key blocks of the namespace's
     * range (a set and a reset of one base-held key per block): otherwise the namespace's libc
     * callocs them at its first {@code pthread_setspecific} and the base libc, which tears the
     * thread down, frees them into the wrong heap.
     */
    static void prepareThread(int namespace) {
        int low = low(namespace);
        try {
            for (int block = low; block < low + RANGE; block += BLOCK) {
                int set = (int) BASE_SET.invokeExact(block, NON_NULL);
                int reset = (int) BASE_SET.invokeExact(block, MemorySegment.NULL);
            }
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }
}
