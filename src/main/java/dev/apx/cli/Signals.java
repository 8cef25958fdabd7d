package dev.apx.cli;

import dev.apx.python.capi.Libc;
import sun.misc.Signal;

/**
 * Signals taken even when the process started with them ignored, as Uvicorn's and Gunicorn's are (Python's
 * {@code signal.signal} replaces an inherited SIG_IGN; HotSpot alone keeps an ignored HUP, INT or TERM ignored
 * and installs no handler): {@code nohup apx --workers 2} reloads on SIGHUP, and {@code apx ... &} in a script
 * stops on SIGINT. Here, not in supervisor/, because the disposition is a libc call and the supervisor never
 * loads the python layer.
 */
final class Signals {
    private Signals() {
    }

    /** Runs {@code action} on a JVM signal thread each time {@code name} arrives. */
    static void handle(String name, Runnable action) {
        takeEvenIfIgnored(name);
        Signal.handle(new Signal(name), received -> action.run());
    }

    /** Gives each of {@code names} its default disposition if it is ignored, just before a supervisor installs its handlers. */
    static void takeEvenIfIgnored(String... names) {
        for (String name : names) {
            Libc.defaultIfIgnored(new Signal(name).getNumber());
        }
    }
}
