package dev.apx.supervisor;

import dev.apx.python.capi.Libc;
import sun.misc.Signal;

/**
 * Signal handlers that take the signal even when the process started with it ignored, as Uvicorn's and
 * Gunicorn's do (Python's {@code signal.signal} replaces an inherited SIG_IGN; HotSpot alone would keep
 * it): {@code nohup apx --workers 2} reloads on SIGHUP, and {@code apx ... &} in a script stops on SIGINT.
 */
public final class Signals {
    private Signals() {
    }

    /** Runs {@code action} on a JVM signal thread each time {@code name} (INT, TERM, HUP, TTIN...) arrives. */
    public static void handle(String name, Runnable action) {
        Signal signal = new Signal(name);
        Libc.defaultIfIgnored(signal.getNumber());
        Signal.handle(signal, received -> action.run());
    }
}
