package dev.apx.config;

/** The range checks the records share; each message names the setting by its command-line flag. */
final class Checks {
    private Checks() {
    }

    static void atLeast(String flag, long value, long least) {
        if (value < least) {
            throw new IllegalArgumentException(flag + " must be " + least + " or more, got " + value);
        }
    }

    static void positive(String flag, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(flag + " must be at least 1, got " + value);
        }
    }

    static void seconds(String flag, double value) {
        if (!(value >= 0) || value > 1e9) {
            throw new IllegalArgumentException(flag + " must be a number of seconds >= 0, got " + value);
        }
    }
}
