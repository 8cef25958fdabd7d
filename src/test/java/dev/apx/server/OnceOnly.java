package dev.apx.server;

import dev.apx.python.TestPython;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * For tests of what the Java side does alone (decoding, timeouts, fuzzing): they run in the
 * Python 3.11 fork only, since the other two forks would repeat them unchanged and the suite's
 * time matters.
 */
public final class OnceOnly {
    private OnceOnly() {
    }

    public static void inThe311Fork() {
        assumeTrue(TestPython.install().minorVersion().equals("3.11"), "Java-side behaviour: runs once, in the 3.11 fork");
    }
}
