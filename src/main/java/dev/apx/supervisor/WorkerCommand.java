package dev.apx.supervisor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How to start a worker: this very JVM's command line (java, its options, {@code -jar apx.jar} or
 * {@code -cp ... Main}) with the same apx arguments; {@code $APX_SUPERVISOR_SOCKET} makes it a worker.
 */
record WorkerCommand(List<String> command) {

    /** From {@code /proc/self/cmdline}: everything before apx's own {@code args} is the JVM's part. */
    static WorkerCommand ofThisProcess(String[] args) {
        ProcessHandle.Info info = ProcessHandle.current().info();
        String java = info.command().orElseThrow(() -> new IllegalStateException("cannot read this process's command line"));
        String[] all = info.arguments().orElseThrow(() -> new IllegalStateException("cannot read this process's arguments"));
        if (all.length < args.length || !Arrays.equals(all, all.length - args.length, all.length, args, 0, args.length)) {
            throw new IllegalStateException("cannot find apx's arguments in this process's command line");
        }
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(Arrays.asList(all).subList(0, all.length - args.length));
        command.addAll(Arrays.asList(args));
        return new WorkerCommand(List.copyOf(command));
    }
}
