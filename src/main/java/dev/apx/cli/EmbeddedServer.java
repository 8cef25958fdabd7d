package dev.apx.cli;

import java.time.Duration;

/**
 * The command-line server inside a host's JVM, for {@code dev.apx.ApxServer}: {@link Serve}'s run
 * split at the point where it serves, without the signal handlers.
 */
public final class EmbeddedServer {
    private final Serve serve;

    private EmbeddedServer(Serve serve) {
        this.serve = serve;
    }

    /** Parses and checks the flags; starts nothing. @throws IllegalArgumentException a bad flag */
    public static EmbeddedServer parse(String... args) {
        return new EmbeddedServer(Main.embedded(args));
    }

    /** Loads the app, runs lifespan startup and binds; 0 once it serves, else the command line's exit code (the reason is logged). */
    public int start() {
        return serve.start();
    }

    public int port() {
        return serve.port();
    }

    /** Waits until the run is asked to end from inside (the request limit): for a host that wants to follow it. */
    public void awaitStopRequest() throws InterruptedException {
        serve.stopRequested().await();
    }

    public void stop(Duration grace) {
        serve.stop(grace);
    }
}
