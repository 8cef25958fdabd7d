package dev.apx.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The Linux scheduling policies (0 SCHED_OTHER, 3 SCHED_BATCH) of a process's threads, from /proc. */
final class SchedulingPolicy {
    private SchedulingPolicy() {
    }

    static Set<Integer> ofThreads(long pid) throws IOException {
        Set<Integer> policies = new TreeSet<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks.toList()) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) {
                    continue; // a thread that ended meanwhile
                }
                // fields after the command name in parentheses start at field 3; "policy" is field 41
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                policies.add(Integer.parseInt(fields[41 - 3]));
            }
        }
        return policies;
    }
}
