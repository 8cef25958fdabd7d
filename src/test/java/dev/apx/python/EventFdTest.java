package dev.apx.python;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/** The eventfd that wakes the loop: a late wake-up from another thread racing the server's stop must be harmless. */
class EventFdTest {
    @Test
    void aSignalAfterCloseIsANoOp() {
        EventFd eventFd = new EventFd();
        eventFd.signal();
        eventFd.close();
        assertThatCode(eventFd::signal).doesNotThrowAnyException();
        assertThatCode(eventFd::close).doesNotThrowAnyException();
    }

    @Test
    void signalsRacingCloseNeitherThrowNorOutliveIt() throws Exception {
        for (int round = 0; round < 300; round++) {
            EventFd eventFd = new EventFd();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch running = new CountDownLatch(2);
            Thread[] signallers = new Thread[2];
            for (int i = 0; i < signallers.length; i++) {
                signallers[i] = Thread.ofPlatform().start(() -> {
                    running.countDown();
                    try {
                        while (!stop.get()) {
                            eventFd.signal();
                            eventFd.reset(); // keeps the counter from saturating; the loop thread's job in apx
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                });
            }
            running.await();
            Thread.sleep(1);
            try {
                eventFd.close();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
            stop.set(true);
            for (Thread t : signallers) {
                t.join();
            }
            assertThat(failure.get()).as("round %d", round).isNull();
        }
    }
}
