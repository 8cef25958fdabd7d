package dev.apx.config;

/** Which thread runs the sockets' I/O ({@code --io}); docs/server.md, "One thread". */
public enum IoMode {
    /** The event loop's thread: a request is read, run and written with no hand-off between threads. */
    LOOP,
    /** Netty's own threads, one per core, handing each request to the loop thread and back. */
    THREADS
}
