package dev.apx.server.api;

/**
 * A thread that Netty does not own and that runs the server's I/O among its own work: the asyncio
 * loop thread, so that a request is read, parsed, driven and written on one thread with no
 * hand-off (docs/server.md, "One thread"). The server knows it only through this interface.
 *
 * <p>Threads: {@link #watch} and {@link #unwatch} are called on {@link #thread()}; {@link #execute}
 * and {@link #hooks} from any thread.
 */
public interface IoHost {
    /** The thread that runs the I/O. */
    Thread thread();

    /** From now on calls {@code onReadable} on the host thread each time {@code fd} is readable (level-triggered). */
    void watch(int fd, Runnable onReadable);

    /** Stops watching {@code fd}; before it is closed. */
    void unwatch(int fd);

    /** Runs {@code task} on the host thread soon. Any thread; never blocks. */
    void execute(Runnable task);

    /**
     * Work the host thread queues for the I/O loop outside its runs (a write's completion, a flush,
     * a close) must run before the host waits again, but only where no task step of the app is in
     * progress, since it may start the next request. The host runs {@code atSafePoint} at each such
     * point when {@code hasWork} says there is work, and {@code afterOtherCall} after each other call
     * from its Python into the server (an app's own task calling {@code send()}), which may only ask
     * for a later run ({@link #execute}).
     */
    void hooks(Runnable atSafePoint, java.util.function.BooleanSupplier hasWork, Runnable afterOtherCall);
}
