package dev.apx;

import dev.apx.python.PyRef;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Python object that has no Java counterpart (an instance of an app's class, a function, a
 * {@code set}, a {@code datetime}), returned by a {@link PythonFunction} call: a handle that keeps
 * the object alive until {@link #close}. Passed back as an argument of another call, Python gets
 * the very same object.
 *
 * <p>{@link #close} gives the reference back at once (on the runtime's loop thread, without the
 * caller waiting for the GIL); the object is freed then if nothing else in Python holds it, not
 * whenever the Java garbage collector gets to the handle. A handle left unclosed is still given
 * back once it becomes unreachable. Each call's result is a new handle, even for the same object.
 */
public final class PythonObject implements AutoCloseable {
    private final PyRef ref;
    private final String typeName;
    private final FunctionCalls calls;
    private final AtomicBoolean closed = new AtomicBoolean();

    PythonObject(PyRef ref, String typeName, FunctionCalls calls) {
        this.ref = ref;
        this.typeName = typeName;
        this.calls = calls;
    }

    /**
     * The object's Python type.
     *
     * @return {@code set} for a builtin type, {@code package.module.Name} for any other
     */
    public String typeName() {
        return typeName;
    }

    /**
     * Whether {@link #close} was called.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return closed.get();
    }

    /** The reference, for an argument of a call. Throws once closed. */
    PyRef ref() {
        if (closed.get()) {
            throw new IllegalStateException("apx: " + this + " is closed");
        }
        return ref;
    }

    /**
     * Gives the Python reference back; closing twice is harmless.
     * Calls already made with this handle as an argument still get the object.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            calls.release(ref);
        }
    }

    @Override
    public String toString() {
        return "PythonObject[" + typeName + (closed.get() ? ", closed]" : "]");
    }
}
