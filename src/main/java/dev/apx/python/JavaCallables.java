package dev.apx.python;

import dev.apx.python.capi.Upcalls;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Java functions an interpreter exposes to Python, by id. An entry lives exactly as long as
 * its Python function object: the capsule destructor removes it.
 */
final class JavaCallables implements Upcalls.Target {
    private final Interpreter interpreter;
    private Upcalls upcalls; // set by install, once the runtime is initialised
    private final Map<Long, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);

    private record Entry(JavaFunction function, MemorySegment definition) {
    }

    JavaCallables(Interpreter interpreter) {
        this.interpreter = interpreter;
    }

    void install() {
        upcalls = new Upcalls(interpreter.capi(), this);
    }

    /** A new reference to a Python function that runs {@code function}. */
    long create(Gil gil, String name, JavaFunction function) {
        long id = nextId.getAndIncrement();
        Upcalls.Function created = upcalls.newFunction(name, id);
        if (created.address() == 0) {
            throw PythonException.fetch(gil);
        }
        entries.put(id, new Entry(function, created.definition()));
        return created.address();
    }

    /** Live Java functions (for leak checks). */
    int size() {
        return entries.size();
    }

    @Override
    public long call(long id, long args, long nargs) {
        Gil gil = interpreter.enterFromPython();
        try {
            Entry entry = entries.get(id);
            if (entry == null) {
                throw new IllegalStateException("Java function #" + id + " is gone");
            }
            Object result = entry.function().call(gil, new Args(gil, args, (int) nargs));
            return Conversions.toPython(gil, result);
        } catch (Throwable error) {
            PythonException.raise(gil, error);
            return 0;
        } finally {
            interpreter.exitFromPython();
        }
    }

    @Override
    public void released(long id) {
        entries.remove(id);
    }
}
