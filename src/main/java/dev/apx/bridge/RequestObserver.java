package dev.apx.bridge;

/**
 * Told how each coroutine the bridge drove went, once it ends (metrics; {@link #NONE} otherwise).
 * Called on the thread that drove it last, with the GIL held: must be quick and must not lock.
 */
@FunctionalInterface
public interface RequestObserver {
    RequestObserver NONE = (hops, suspensions) -> {
    };

    /**
     * @param hops        threads its task ran on ({@link Request#hops()})
     * @param suspensions whether its first step left it waiting ({@link Request#suspensions()})
     */
    void finished(int hops, int suspensions);
}
