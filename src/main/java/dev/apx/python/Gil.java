package dev.apx.python;

import dev.apx.python.capi.CApi;
import dev.apx.python.capi.Globals;

import java.util.List;
import java.util.Map;

/**
 * Proof that the current thread holds the GIL of one {@link Interpreter}: handed to the body of
 * {@link Interpreter#call} and valid only inside it, on that thread (PyO3's {@code Python<'py>},
 * checked at run time). Every operation on a Python object takes one; using a token outside its
 * section fails fast with {@link IllegalStateException} instead of corrupting the interpreter.
 */
public final class Gil {
    private final Interpreter interpreter;
    /** The runtime's C API and static objects, read straight by this package's hot paths. */
    final CApi capi;
    final Globals globals;
    private final Interpreter.ThreadState thread;
    private final Thread owner = Thread.currentThread();
    private boolean active = true;
    private boolean suspended;

    Gil(Interpreter interpreter, Interpreter.ThreadState thread) {
        this.interpreter = interpreter;
        this.capi = interpreter.capi();
        this.globals = interpreter.globals();
        this.thread = thread;
    }

    public Interpreter interpreter() {
        return interpreter;
    }

    /** Fails unless this token's section is open and we are on its thread. */
    void check() {
        if (!active || suspended || Thread.currentThread() != owner) {
            throw new IllegalStateException(!active
                    ? "apx: Gil token used after its GIL section ended (keep Python work inside Interpreter.call)"
                    : suspended ? "apx: Gil token used inside allowThreads, while the GIL is released"
                    : "apx: Gil token of thread " + owner.getName() + " used on thread " + Thread.currentThread().getName());
        }
    }

    void close() {
        active = false;
    }

    void suspend() {
        suspended = true;
    }

    void resume() {
        suspended = false;
    }

    /**
     * Releases the GIL while {@code body} runs (blocking work that must not hold up Python), then
     * takes it back. The token is unusable meanwhile.
     */
    public void allowThreads(Runnable body) {
        interpreter.allowThreads(this, body);
    }

    /** {@code contextvars.copy_context()} */
    public PyRef copyContext() {
        check();
        return PyRef.owned(this, Conversions.checked(this, capi.PyContext_CopyCurrent()));
    }

    /** {@code context.copy()}: a new context with {@code context}'s variables. */
    public PyRef copyContext(PyRef context) {
        check();
        return PyRef.owned(this, Conversions.checked(this, capi.PyContext_Copy(context.address(this))));
    }

    /** {@code contextvars.Context()}: a new context with no variables set. */
    public PyRef newContext() {
        check();
        return PyRef.owned(this, Conversions.checked(this, capi.PyContext_New()));
    }

    Scratch scratch() {
        return thread.scratch();
    }

    /** Remembers a reference created in this section (see {@link PyRef#outliveSection}). */
    void adopt(PyRef ref) {
        thread.adopt(ref);
    }

    // --- the entry points that create Python objects

    /** {@code import name} */
    public PyRef importModule(String name) {
        check();
        return PyRef.owned(this, Conversions.checked(this, Conversions.importModule(this, name)));
    }

    /** Converts a Java value (see {@link Conversions}) into a new Python object. */
    public PyRef of(Object value) {
        check();
        return PyRef.owned(this, Conversions.toPython(this, value));
    }

    public PyRef none() {
        return of(null);
    }

    /** A Python tuple of the converted items (a Java array converts to a tuple too). */
    public PyRef tuple(Object... items) {
        return of(items);
    }

    public PyRef list(List<?> items) {
        return of(items);
    }

    public PyRef dict(Map<?, ?> items) {
        return of(items);
    }

    /** A Python callable named {@code name} whose body is {@code function}. */
    public PyRef function(String name, JavaFunction function) {
        check();
        return PyRef.owned(this, interpreter.callables().create(this, name, function));
    }
}
