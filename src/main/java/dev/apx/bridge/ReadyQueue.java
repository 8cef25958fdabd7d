package dev.apx.bridge;

import dev.apx.log.Log;
import dev.apx.python.EventFd;
import dev.apx.python.Gil;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Work for the loop thread posted by other threads: new requests (LOOP start mode), completions
 * of Java-completed futures, cancellations. Posting never needs the GIL: the loop is woken through
 * an eventfd it watches with {@code add_reader}, and wake-ups are coalesced, one per batch.
 */
final class ReadyQueue implements AutoCloseable {
    private final Queue<Consumer<Gil>> actions = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private final EventFd eventFd = new EventFd();

    int fd() {
        return eventFd.fd();
    }

    /** Queues {@code action} to run on the loop thread, with the GIL. Any thread. */
    void post(Consumer<Gil> action) {
        actions.add(action);
        wake();
    }

    /** Wakes the loop if it is waiting in select (at most one pending wake-up). Any thread, no GIL needed. */
    void wake() {
        if (wakePending.compareAndSet(false, true)) {
            eventFd.signal();
        }
    }

    /** Queues {@code action} without waking the loop: the loop thread's own posts, run at its next safe point. */
    void postQuietly(Consumer<Gil> action) {
        actions.add(action);
    }

    /** Runs what was queued; called on the loop thread when the eventfd is readable. */
    void drain(Gil gil) {
        // Reset the eventfd first, then the flag: a post whose wake-up we may have just swallowed
        // was queued before the size() below; a post after the flag is cleared signals again.
        eventFd.reset();
        wakePending.set(false);
        runQueued(gil);
    }

    /** Runs what is queued now (later posts wait for the next round); on the loop thread. */
    void runQueued(Gil gil) {
        int budget = actions.size();
        Consumer<Gil> action;
        while (budget-- > 0 && (action = actions.poll()) != null) {
            try {
                action.accept(gil);
            } catch (RuntimeException e) {
                Log.error("apx: a loop action failed", e);
            }
        }
        if (!actions.isEmpty()) {
            wake();
        }
    }

    /** A wake-up was signalled and the loop has not drained since: it returns from select, or has. */
    boolean wakePending() {
        return wakePending.get();
    }

    boolean isEmpty() {
        return actions.isEmpty();
    }

    @Override
    public void close() {
        eventFd.close();
    }
}
