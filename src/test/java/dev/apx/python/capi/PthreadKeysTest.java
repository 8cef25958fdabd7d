package dev.apx.python.capi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A namespace's key range is taken in the base libc while runtime 0 and the JVM keep creating keys there (a
 * runtime starting beside runtime 0's import): none of their creates may fail (a Rust extension aborts the
 * process on one, "out of TLS keys"), nor get another key than it would have.
 */
class PthreadKeysTest {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle CREATE = base("pthread_key_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle DELETE = base("pthread_key_delete", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle SET = base("pthread_setspecific", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    private static final int EINVAL = 22;

    @Test
    void reservingRangesNeverFailsAKeyCreatedMeanwhileInTheBaseLibc() throws Throwable {
        // the next three namespaces, in apx's order: each range lies just below the ones taken before it, so a
        // reservation that created keys up to its range would hold every key of the base libc on the way
        int next = 1;
        while (next < LibPython.MAX_NAMESPACES && set(PthreadKeys.low(next)) == 0) {
            next++; // taken by another test's runtime in this JVM
        }
        assumeTrue(next + 2 < LibPython.MAX_NAMESPACES, "three namespaces left in this JVM");
        int[] namespaces = {next, next + 1, next + 2};
        for (int namespace : namespaces) {
            assertThat(set(PthreadKeys.low(namespace))).as("namespace %d's keys are free", namespace).isEqualTo(EINVAL);
        }
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong created = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong lowest = new AtomicLong(Long.MAX_VALUE);
        AtomicLong highest = new AtomicLong();
        CountDownLatch running = new CountDownLatch(1);
        Thread creating = Thread.ofPlatform().start(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment key = arena.allocate(JAVA_INT);
                while (!done.get()) {
                    if ((int) CREATE.invokeExact(key, MemorySegment.NULL) != 0) {
                        failed.incrementAndGet();
                    } else {
                        created.incrementAndGet();
                        int index = key.get(JAVA_INT, 0);
                        lowest.accumulateAndGet(index, Math::min);
                        highest.accumulateAndGet(index, Math::max);
                        int ignored = (int) DELETE.invokeExact(index);
                    }
                    running.countDown();
                }
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        });
        running.await();
        for (int namespace : namespaces) {
            PthreadKeys.reserveInBase(namespace);
        }
        done.set(true);
        creating.join();

        assertThat(failed.get()).as("creates that failed while the ranges were taken, of " + created.get()).isZero();
        // a create gets the lowest free key: had the reservation held the keys below its range even for a moment,
        // the keys created meanwhile would have come from above them (and at the top, none would have been left)
        assertThat(highest.get() - lowest.get()).as("keys %d..%d created while the ranges were taken", lowest.get(), highest.get())
                .isLessThan(16);
        for (int namespace : namespaces) {
            int low = PthreadKeys.low(namespace);
            for (int key = low; key < low + PthreadKeys.RANGE; key++) {
                assertThat(set(key)).as("key %d is held for namespace %d", key, namespace).isZero();
            }
        }
    }

    /** pthread_setspecific(key, NULL) in the base libc: 0 for a key in use, EINVAL for a free one. */
    private static int set(int key) throws Throwable {
        return (int) SET.invokeExact(key, MemorySegment.NULL);
    }

    private static MethodHandle base(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor);
    }
}
