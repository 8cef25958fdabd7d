package dev.apx.python;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The GIL token and owned references fail fast when misused, and never leak or double-free. */
class GilTest {
    private final Interpreter python = TestPython.interpreter();

    @Test
    void aTokenUsedAfterItsSectionFailsFast() {
        Gil leaked = python.call(gil -> gil);
        assertThatThrownBy(() -> leaked.of(1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after its GIL section ended");
    }

    @Test
    void aTokenUsedOnAnotherThreadFailsFast() throws InterruptedException {
        AtomicReference<Throwable> error = new AtomicReference<>();
        python.run(gil -> {
            Thread other = new Thread(() -> {
                try {
                    gil.of("x");
                } catch (Throwable t) {
                    error.set(t);
                }
            });
            other.start();
            try {
                other.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(error.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("used on thread");
    }

    @Test
    void aVirtualThreadGetsAClearErrorAndTheInterpreterLivesOn() throws InterruptedException {
        AtomicReference<Throwable> error = new AtomicReference<>();
        Thread.ofVirtual().start(() -> {
            try {
                python.run(gil -> gil.of(1).close());
            } catch (Throwable t) {
                error.set(t);
            }
        }).join();
        assertThat(error.get()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("virtual thread").hasMessageContaining("platform thread");
        Object stillWorks = python.call(gil -> {
            try (PyRef value = gil.of(41)) {
                return value.toJava(gil);
            }
        });
        assertThat(stillWorks).isEqualTo(41L);
    }

    @Test
    void sectionsNestAndShareTheToken() {
        assertThat(python.holdsGil()).isFalse();
        Boolean same = python.call(outer -> python.call(inner -> inner == outer && python.holdsGil()));
        assertThat(same).isEqualTo(Boolean.TRUE);
        assertThat(python.holdsGil()).isFalse();
    }

    @Test
    void closingTwiceIsHarmlessAndUseAfterCloseFails() {
        python.run(gil -> {
            PyRef ref = gil.of("once");
            ref.close();
            ref.close();
            assertThat(ref.isClosed()).isTrue();
            assertThatThrownBy(() -> ref.toJava(gil)).isInstanceOf(IllegalStateException.class).hasMessageContaining("after close");
        });
    }

    @Test
    void aReleaseWithoutTheGilWaitsForTheNextEntry() {
        PyRef[] box = new PyRef[1];
        PyRef weak = python.call(gil -> {
            try (PyRef values = gil.importModule("apxtest.values")) {
                box[0] = values.callMethod(gil, "Box");
            }
            try (PyRef weakref = gil.importModule("weakref")) {
                return weakref.callMethod(gil, "ref", box[0]);
            }
        });
        int pendingBefore = python.pendingReleases();
        box[0].close(); // this thread does not hold the GIL: the decref is queued
        assertThat(python.pendingReleases()).isEqualTo(pendingBefore + 1);
        python.run(gil -> {
            assertThat(python.pendingReleases()).isZero();
            try (PyRef target = weak.call(gil)) {
                assertThat(target.isNone(gil)).as("object freed at the next entry").isTrue();
            }
        });
        weak.close();
    }

    @Test
    void aThreadThatNeverLeavesPythonReleasesQueuedReferencesAtItsUpcalls() {
        // the asyncio loop thread in LOOP mode holds the GIL for its whole life and enters Java
        // only by upcalls: references other threads give back must not pile up behind it
        python.run(gil -> {
            PyRef box;
            PyRef weak;
            try (PyRef values = gil.importModule("apxtest.values"); PyRef weakref = gil.importModule("weakref")) {
                box = values.callMethod(gil, "Box");
                weak = weakref.callMethod(gil, "ref", box);
            }
            Thread other = new Thread(box::close); // no GIL there: the decref is queued
            other.start();
            try {
                other.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            try (PyRef before = weak.call(gil)) {
                assertThat(before.isNone(gil)).as("queued, not yet freed").isFalse();
            }
            try (PyRef upcall = gil.function("noop", (g, args) -> null); PyRef ignored = upcall.call(gil);
                 PyRef target = weak.call(gil)) {
                assertThat(target.isNone(gil)).as("object freed at the upcall").isTrue();
            }
            weak.close();
        });
    }

    @Test
    void anUnreachableReferenceIsReleasedByTheCleaner() throws InterruptedException {
        PyRef weak = python.call(gil -> {
            try (PyRef values = gil.importModule("apxtest.values"); PyRef weakref = gil.importModule("weakref")) {
                PyRef dropped = values.callMethod(gil, "Box"); // never closed
                return weakref.callMethod(gil, "ref", dropped);
            }
        });
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        boolean freed = false;
        while (!freed && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
            freed = python.call(gil -> weak.call(gil).isNone(gil));
        }
        assertThat(freed).as("the Cleaner released the forgotten reference").isTrue();
        weak.close();
    }
}
