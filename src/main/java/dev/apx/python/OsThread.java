package dev.apx.python;

import dev.apx.python.capi.Libc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * What the kernel says a thread of this process is doing: whether it is blocked waiting for file
 * descriptors (epoll) rather than for a lock (a futex: the GIL, a Java lock) or running. Read from
 * {@code /proc/self/task/TID/syscall}, which names the system call a blocked thread is in.
 */
public final class OsThread {
    /** epoll_wait, epoll_pwait, epoll_pwait2 (x86_64); epoll_pwait, epoll_pwait2 (aarch64, which has no epoll_wait). */
    private static final Set<Long> POLLS = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> Set.of(232L, 281L, 441L);
        case "aarch64" -> Set.of(22L, 441L);
        default -> Set.of();
    };

    private final Path syscall;

    private OsThread(int tid) {
        this.syscall = Path.of("/proc/self/task/" + tid + "/syscall");
    }

    /** The calling thread. */
    public static OsThread current() {
        return new OsThread(Libc.gettid());
    }

    /**
     * True when the thread is blocked in epoll, false when it is blocked in anything else or runs;
     * null when this cannot be known (no /proc, another architecture).
     */
    public Boolean inPoll() {
        if (POLLS.isEmpty()) {
            return null;
        }
        String line;
        try {
            line = Files.readString(syscall).strip();
        } catch (IOException | SecurityException e) {
            return null;
        }
        int space = line.indexOf(' ');
        if (space < 0) {
            return false; // "running", or "-1 ..." (blocked, but not in a system call)
        }
        try {
            return POLLS.contains(Long.parseLong(line.substring(0, space)));
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
