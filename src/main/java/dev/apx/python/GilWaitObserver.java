package dev.apx.python;

/**
 * Told how long a Java thread waited to take the GIL, each time it took it (metrics). Called with
 * the GIL just taken: must be quick and must not lock.
 */
@FunctionalInterface
public interface GilWaitObserver {
    void waited(long nanos);
}
