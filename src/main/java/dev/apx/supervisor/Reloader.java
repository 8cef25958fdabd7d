package dev.apx.supervisor;

import dev.apx.log.Log;

import sun.misc.Signal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code --reload}: Uvicorn's reloader with the JDK's WatchService (inotify) instead of watchfiles.
 * One worker; a change to a watched file stops it (SIGTERM, it drains) and starts a new one. A new
 * worker that cannot import the app shows its traceback and the reloader keeps watching: the next
 * change (the fix) starts it again.
 */
public final class Reloader {
    /** The signals it handles (cli takes them even when the process started with them ignored). */
    public static final List<String> SIGNALS = List.of("INT", "TERM");

    /** How long a worker may take to load new code in-process before it is restarted instead (a hung import). */
    private static final int RELOAD_ANSWER_SECONDS = 120;
    /**
     * A save is over when no watched file changed for this long: watchfiles' step, which Uvicorn's
     * reload waits for; --reload-delay (0.25 s) here cost every edit a quarter second more than Uvicorn.
     */
    private static final long QUIET_MILLIS = 50;

    private final WorkerCommand command;
    private final List<Path> dirs;
    private final ReloadFilter filter;
    private final long delayMillis;
    private volatile boolean shouldExit;

    public Reloader(String[] args, List<Path> dirs, List<String> includes, List<String> excludes, double delaySeconds) {
        this.command = WorkerCommand.ofThisProcess(args);
        this.dirs = dirs.stream().map(d -> d.toAbsolutePath().normalize()).distinct().sorted().toList();
        this.filter = new ReloadFilter(includes, excludes);
        this.delayMillis = Math.round(delaySeconds * 1000);
    }

    public int run(String host, int port, Path uds, Integer fd, int backlog) {
        Log.info("Will watch for changes in these directories: "
                + dirs.stream().map(d -> "'" + d + "'").toList());
        try (ListenSocket socket = fd != null ? ListenSocket.inherit(fd) : ListenSocket.bind(host, port, uds, backlog);
             ControlServer control = ControlServer.start(socket.fd());
             WatchService watcher = FileSystems.getDefault().newWatchService()) {
            Log.info("apx running on " + socket.url() + " (Press CTRL+C to quit)");
            long pid = ProcessHandle.current().pid();
            Log.info("Started reloader process [" + pid + "] using WatchService");
            for (String name : SIGNALS) {
                Signal.handle(new Signal(name), s -> shouldExit = true);
            }
            Map<WatchKey, Path> keys = new HashMap<>();
            for (Path dir : dirs) {
                register(watcher, dir, keys);
            }
            Worker worker = start(control);
            while (!shouldExit) {
                Set<Path> changes = changes(watcher, keys);
                if (!changes.isEmpty() && !shouldExit) {
                    Log.warning("WatchService detected changes in " + String.join(", ", changes.stream().map(Reloader::display).toList())
                            + ". Reloading...");
                    worker = reload(worker, control);
                } else if (!worker.isAlive() && worker.isReady()) {
                    control.forget(worker); // it died after serving: it comes back at the next change, as with Uvicorn
                }
            }
            stop(worker, control);
            Log.info("Stopping reloader process [" + pid + "]");
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot watch " + dirs + ": " + e.getMessage(), e);
        }
    }

    /**
     * The new code: loaded into fresh runtimes inside the running worker when it can (no new JVM, so
     * no start-up to pay; a new code that fails to import leaves the old one serving), else by
     * restarting the worker as Uvicorn does.
     */
    private Worker reload(Worker worker, ControlServer control) {
        String outcome;
        try {
            outcome = worker.reload().get(RELOAD_ANSWER_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = WorkerLink.RELOAD_BY_RESTART;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            outcome = WorkerLink.RELOAD_BY_RESTART;
        }
        Log.debug("reload: the worker answered " + outcome);
        switch (outcome) {
            case WorkerLink.RELOADED -> {
                return worker;
            }
            case WorkerLink.RELOAD_FAILED -> {
                Log.warning("The new code did not start (see above); the previous code keeps serving until the next change.");
                return worker;
            }
            default -> {
                stop(worker, control);
                return start(control);
            }
        }
    }

    private Worker start(ControlServer control) {
        Worker worker = control.start(command, null);
        worker.release(true); // one worker: its lines as they come, a failed import's traceback included
        return worker;
    }

    private static void stop(Worker worker, ControlServer control) {
        worker.terminate();
        worker.join();
        control.forget(worker);
    }

    /** The changed files that pass the filter, checking every {@code --reload-delay}; empty on none or exit. */
    private Set<Path> changes(WatchService watcher, Map<WatchKey, Path> keys) throws IOException {
        Set<Path> changed = new LinkedHashSet<>();
        try {
            WatchKey key = watcher.poll(Math.max(delayMillis, QUIET_MILLIS), TimeUnit.MILLISECONDS); // --reload-delay 0 must not spin
            while (key != null) {
                Path dir = keys.get(key);
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW || dir == null) {
                        continue;
                    }
                    Path path = dir.resolve((Path) event.context());
                    if (Files.isDirectory(path)) {
                        if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) {
                            register(watcher, path, keys);
                        }
                    } else if (filter.test(path)) {
                        changed.add(path);
                    }
                }
                if (!key.reset()) {
                    keys.remove(key);
                }
                // an editor's save is several events: collect what follows until the files are quiet
                key = changed.isEmpty() ? null : watcher.poll(QUIET_MILLIS, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            shouldExit = true;
        }
        return changed;
    }

    private void register(WatchService watcher, Path root, Map<WatchKey, Path> keys) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
                if (!dir.equals(root) && filter.skipDirectory(dir)) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                keys.put(dir.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                        StandardWatchEventKinds.ENTRY_DELETE), dir);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                Log.warning("cannot watch " + file + ": " + e.getMessage());
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static String display(Path path) {
        Path cwd = Path.of("").toAbsolutePath();
        return "'" + (path.startsWith(cwd) ? cwd.relativize(path) : path) + "'";
    }
}
