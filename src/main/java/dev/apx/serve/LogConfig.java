package dev.apx.serve;

import dev.apx.log.Log;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code --log-config FILE}: the file is applied as Uvicorn applies it ({@code _apx._logging}), then
 * every server line and access record goes to Python's {@code logging} ({@code uvicorn.error},
 * {@code uvicorn.access}) instead of stderr/stdout.
 *
 * <p>A record needs the GIL. A thread that holds it (the loop thread inside the app's
 * {@code send}, where the access record is made) emits at once, in the request's context as
 * Uvicorn does; any other thread (Netty's, the main thread between sections) queues the record, and
 * the {@code apx-log} thread emits what has queued in one GIL section. Records keep their order:
 * one emitter at a time ({@link #inOrder}), and it empties the queue first. Holding the GIL is not
 * enough for that: Python can switch threads between taking a record and writing it.
 */
final class LogConfig implements Log.Sink {
    private final Interpreter interpreter;
    private final PyRef server;
    private final PyRef access;
    private final PyRef threshold;
    private final ConcurrentLinkedQueue<Object[]> queue = new ConcurrentLinkedQueue<>();
    // one permit per queued record: apx-log waits on it
    private final Semaphore queued = new Semaphore(0);
    // taken before the GIL, never while waiting for it: a thread that already holds the GIL only
    // tries it, and queues its record when another emitter has it
    private final ReentrantLock inOrder = new ReentrantLock();
    private final ThreadLocal<boolean[]> emitting = ThreadLocal.withInitial(() -> new boolean[1]);

    private LogConfig(Interpreter interpreter, PyRef server, PyRef access, PyRef threshold) {
        this.interpreter = interpreter;
        this.server = server;
        this.access = access;
        this.threshold = threshold;
    }

    /** A missing or unreadable file fails before Python starts (as click's {@code Path(exists=True)} for Uvicorn). */
    static void checkReadable(Path file) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException("--log-config " + file + ": no such readable file");
        }
    }

    /**
     * Applies {@code file} and routes {@link Log} through it. {@code logLevel} is the explicit
     * {@code --log-level} (null: the file's levels stay, as with Uvicorn). A bad file or config is one
     * {@link IllegalArgumentException}.
     */
    static LogConfig apply(Interpreter interpreter, Path file, Log.Level logLevel, boolean accessLog) {
        LogConfig config = interpreter.call(gil -> {
            try (PyRef module = gil.importModule("_apx._logging")) {
                module.callMethod(gil, "configure", file.toString(), logLevel == null ? null : logLevel.name().toLowerCase(java.util.Locale.ROOT),
                        accessLog).close();
                return new LogConfig(interpreter, module.getAttr(gil, "server"), module.getAttr(gil, "access"),
                        module.getAttr(gil, "threshold"));
            } catch (PythonException e) {
                throw new IllegalArgumentException("--log-config " + file + ": " + e.pythonMessage());
            }
        });
        config.refreshThreshold();
        Thread.ofPlatform().name("apx-log").daemon(true).start(config::emitQueued);
        return config;
    }

    /**
     * Reads the level of {@code uvicorn.error} again (an app may set it when it is imported): Java
     * sends nothing below it.
     */
    void refreshThreshold() {
        long level = interpreter.call(gil -> {
            try (PyRef value = threshold.call(gil)) {
                return (Long) value.toJava(gil);
            }
        });
        Log.route(this, levelOf(level));
    }

    private static Log.Level levelOf(long pythonLevel) {
        if (pythonLevel <= 5) {
            return Log.Level.TRACE;
        }
        return pythonLevel <= 10 ? Log.Level.DEBUG : pythonLevel <= 20 ? Log.Level.INFO : pythonLevel <= 30 ? Log.Level.WARNING
                : pythonLevel <= 40 ? Log.Level.ERROR : Log.Level.CRITICAL;
    }

    private static int pythonLevel(Log.Level level) {
        return switch (level) {
            case TRACE -> 5;
            case DEBUG -> 10;
            case INFO -> 20;
            case WARNING -> 30;
            case ERROR -> 40;
            case CRITICAL -> 50;
        };
    }

    @Override
    public void server(Log.Level level, String message) {
        submit(new Object[] {pythonLevel(level), message});
    }

    @Override
    public void access(String client, String method, String pathWithQuery, String httpVersion, int status) {
        submit(new Object[] {client, method, pathWithQuery, httpVersion, status});
    }

    private void submit(Object[] record) {
        boolean[] busy = emitting.get();
        if (!busy[0] && interpreter.holdsGil() && inOrder.tryLock()) {
            try {
                emitAll();
                emit(record);
            } finally {
                inOrder.unlock();
            }
        } else {
            queue.add(record); // no GIL here, another thread emitting, or a line logged while a record is emitted
            queued.release();
        }
    }

    /** Emits every queued record now, on this thread (apx-log's, and at shutdown, so that the last lines are not lost). */
    void flush() {
        inOrder.lock();
        try {
            interpreter.run(gil -> emitAll());
        } finally {
            inOrder.unlock();
        }
    }

    private void emitQueued() {
        while (true) {
            try {
                queued.acquire();
                queued.drainPermits(); // a record queued after this has its own permit: no wake-up lost
                flush();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                System.err.println("apx: --log-config: " + e); // a bug in apx: never lose the thread
            }
        }
    }

    private void emitAll() {
        Object[] record;
        while ((record = queue.poll()) != null) {
            emit(record);
        }
    }

    /** One record into Python; the GIL is held. logging reports its handlers' errors itself. */
    private void emit(Object[] record) {
        boolean[] busy = emitting.get();
        busy[0] = true;
        try {
            interpreter.run(gil -> (record.length == 2 ? server : access).call(gil, record).close());
        } catch (PythonException e) {
            System.err.println("apx: --log-config: a record could not be logged: " + e.getMessage());
        } finally {
            busy[0] = false;
        }
    }
}
