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
     * @param hops        GIL acquisitions it was driven in ({@link Request#hops()})
     * @param suspensions times it waited on a pending future ({@link Request#suspensions()})
     */
    void finished(int hops, int suspensions);
}
