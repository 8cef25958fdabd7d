package dev.apx.cli;

/**
 * A flag's value is out of its range, or two flags conflict: the command line names the flag in one
 * line and exits 2, as for any other usage error. Still an {@link IllegalArgumentException}, as the
 * configuration's own checks are, for {@link Main#toConfig(String...)}.
 */
final class BadFlag extends IllegalArgumentException {
    BadFlag(String message) {
        super(message);
    }
}
