package dev.apx.python;

import dev.apx.python.capi.Globals;

import java.lang.ref.Cleaner;
import java.util.List;
import java.util.Map;

/**
 * An owned (strong) reference to a Python object: one {@code Py_INCREF} that this object gives
 * back exactly once.
 *
 * <p>Ownership rules:
 * <ul>
 *   <li>{@link #close} releases it. Under the GIL the decref happens at once; on a thread without
 *       the GIL it is queued and done by the next thread that enters the interpreter.</li>
 *   <li>A reference that becomes unreachable without {@code close} is released the same deferred
 *       way, by a {@link Cleaner}: it cannot leak. To keep the common case cheap, a reference joins
 *       its thread's list of new references and is registered with the Cleaner only if it is still
 *       open when its GIL section ends.</li>
 *   <li>Closing twice is harmless; using a closed reference throws {@link IllegalStateException}.</li>
 * </ul>
 * A {@code PyRef} may be stored and passed between threads; every operation on the object takes a
 * {@link Gil}.
 */
public final class PyRef implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Interpreter interpreter;
    private final Owner owner;
    private volatile Cleaner.Cleanable cleanable; // set once the reference outlives its GIL section

    private PyRef(Gil gil, long address) {
        this.interpreter = gil.interpreter();
        this.owner = new Owner(interpreter, address);
        gil.adopt(this);
    }

    /** Takes ownership of a new reference (the result of a C-API call that returns one). */
    static PyRef owned(Gil gil, long newReference) {
        return new PyRef(gil, newReference);
    }

    /** Makes an owned reference from a borrowed one. */
    static PyRef fromBorrowed(Gil gil, long borrowed) {
        gil.capi.Py_IncRef(borrowed);
        return new PyRef(gil, borrowed);
    }

    /** The object's address; valid while this reference is open. */
    long address(Gil gil) {
        gil.check();
        if (gil.interpreter() != interpreter) {
            throw new IllegalStateException("apx: a PyRef of one interpreter used with another's Gil");
        }
        long a = owner.address;
        if (a == 0) {
            throw new IllegalStateException("apx: PyRef used after close");
        }
        return a;
    }

    public boolean isClosed() {
        return owner.address == 0;
    }

    /** Gives the reference back (see the class comment for threads). */
    @Override
    public void close() {
        if (owner.release()) {
            Cleaner.Cleanable registered = cleanable;
            if (registered != null) {
                registered.clean(); // deregisters; its action finds the reference already given back
            }
        }
    }

    /**
     * Called when the GIL section that created this reference ends (or its thread's list of new
     * references is full): a reference still open from here on is watched by the Cleaner. Most
     * references are closed within their section and never pay for a Cleaner registration.
     */
    void outliveSection() {
        if (owner.address != 0 && cleanable == null) {
            cleanable = CLEANER.register(this, owner);
        }
    }

    /** Another owned reference to the same object. */
    public PyRef newRef(Gil gil) {
        return fromBorrowed(gil, address(gil));
    }

    public boolean isNone(Gil gil) {
        return address(gil) == gil.globals.none;
    }

    /** {@code getattr(obj, name)} */
    public PyRef getAttr(Gil gil, String name) {
        return owned(gil, Conversions.getAttr(gil, address(gil), name));
    }

    /** {@code setattr(obj, name, value)}, the value converted like {@link Gil#of}. */
    public void setAttr(Gil gil, String name, Object value) {
        Conversions.setAttr(gil, address(gil), name, value);
    }

    /** {@code obj(*args)}, each argument converted like {@link Gil#of}. */
    public PyRef call(Gil gil, Object... args) {
        return owned(gil, Conversions.checked(gil, Conversions.call(gil, address(gil), args, null)));
    }

    /** {@code obj(*args, **kwargs)}: {@code args} are the positional arguments, converted one by one. */
    public PyRef callWithKeywords(Gil gil, List<?> args, Map<String, ?> kwargs) {
        return owned(gil, Conversions.checked(gil, Conversions.call(gil, address(gil), args.toArray(), kwargs)));
    }

    /**
     * {@code obj(*args, **kwargs)} run in a new, empty {@code contextvars.Context}, its result
     * converted as {@link #toJava} converts (a new {@code PyRef} for an object with no Java
     * counterpart). The context and the result's reference are raw: no {@code PyRef} is made for
     * either unless the result needs one, which keeps a quick call from Java cheap.
     */
    public Object callInNewContext(Gil gil, Object[] args, Map<String, ?> kwargs) {
        long callable = address(gil);
        long context = Conversions.checked(gil, gil.capi.PyContext_New());
        long result;
        PythonException error = null;
        try {
            Conversions.checkedStatus(gil, gil.capi.PyContext_Enter(context));
            try {
                result = Conversions.call(gil, callable, args, kwargs);
                if (result == 0) {
                    error = PythonException.fetch(gil); // before the exit: no C-API call with an error pending
                }
            } finally {
                gil.capi.PyContext_Exit(context);
            }
        } finally {
            gil.capi.Py_DecRef(context);
        }
        if (error != null) {
            throw error;
        }
        try {
            return Conversions.toJava(gil, result);
        } finally {
            gil.capi.Py_DecRef(result);
        }
    }

    /** {@code getattr(obj, method)(*args)} */
    public PyRef callMethod(Gil gil, String method, Object... args) {
        long bound = Conversions.getAttr(gil, address(gil), method); // no PyRef for the bound method: it lives for this call only
        try {
            return owned(gil, Conversions.checked(gil, Conversions.call(gil, bound, args, null)));
        } finally {
            gil.capi.Py_DecRef(bound);
        }
    }

    /** {@code id(obj)}: the object's identity while it lives. */
    public long id(Gil gil) {
        return address(gil);
    }

    /** {@code type(obj) is type} */
    public boolean hasExactType(Gil gil, PyRef type) {
        return Globals.typeOf(address(gil)) == type.address(gil);
    }

    /** {@code obj is other} */
    public boolean is(Gil gil, PyRef other) {
        return address(gil) == other.address(gil);
    }

    /** {@code len(obj)} */
    public long len(Gil gil) {
        long size = gil.capi.PyObject_Size(address(gil));
        if (size < 0) {
            throw PythonException.fetch(gil);
        }
        return size;
    }

    /**
     * A list's {@code ob_size} read straight from memory, without a C-API call: exact under the
     * GIL; without it (a watcher deciding whether to take the GIL) possibly stale. The caller
     * keeps this reference open.
     */
    public long storedSize() {
        long a = owner.address;
        if (a == 0) {
            throw new IllegalStateException("apx: PyRef used after close");
        }
        return Globals.sizeUnlocked(a);
    }

    /** {@code bool(obj)} */
    public boolean isTrue(Gil gil) {
        int truth = gil.capi.PyObject_IsTrue(address(gil));
        if (truth < 0) {
            throw PythonException.fetch(gil);
        }
        return truth == 1;
    }

    /**
     * One step of a coroutine or generator ({@code PyIter_Send}): sends {@code value} (converted
     * like {@link Gil#of}) and returns what it yielded or, when it finished, what it returned.
     * An exception it raised is thrown as {@link PythonException}.
     */
    public Sent send(Gil gil, Object value) {
        long coroutine = address(gil);
        long argument = Conversions.toPython(gil, value);
        try {
            return Conversions.onScratch(gil, 8, out -> {
                int status = gil.capi.PyIter_Send(coroutine, argument, out.address());
                long result = out.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
                if (status == PYGEN_ERROR) {
                    throw PythonException.fetch(gil);
                }
                return new Sent(status == PYGEN_RETURN, owned(gil, result));
            });
        } finally {
            gil.capi.Py_DecRef(argument);
        }
    }

    /** What {@link #send} got back: a yielded value, or the return value when {@code finished}. */
    public record Sent(boolean finished, PyRef value) {
    }

    private static final int PYGEN_RETURN = 0;
    private static final int PYGEN_ERROR = -1;

    /** Enters this {@code contextvars.Context} on the current thread ({@code PyContext_Enter}). */
    public void enterContext(Gil gil) {
        Conversions.checkedStatus(gil, gil.capi.PyContext_Enter(address(gil)));
    }

    /** Leaves this context, which must be the current one. */
    public void exitContext(Gil gil) {
        Conversions.checkedStatus(gil, gil.capi.PyContext_Exit(address(gil)));
    }

    /** The object as a Java value (None, bool, int, float, str, bytes, list, tuple, dict; else a new PyRef). */
    public Object toJava(Gil gil) {
        return Conversions.toJava(gil, address(gil));
    }

    /** {@code str(obj)} */
    public String str(Gil gil) {
        return Conversions.str(gil, address(gil));
    }

    /** {@code repr(obj)} */
    public String repr(Gil gil) {
        long repr = Conversions.checked(gil, gil.capi.PyObject_Repr(address(gil)));
        try {
            return Conversions.utf8(gil, repr);
        } finally {
            gil.capi.Py_DecRef(repr);
        }
    }

    @Override
    public String toString() {
        long a = owner.address;
        return a == 0 ? "PyRef[closed]" : "PyRef[0x" + Long.toHexString(a) + "]";
    }

    /**
     * The one decref a reference owes, shared by {@link #close} and the Cleaner: whichever swaps
     * the address to 0 first gives it back. Must not refer to the PyRef itself (Cleaner rule).
     */
    private static final class Owner implements Runnable {
        private static final java.lang.invoke.VarHandle ADDRESS;

        static {
            try {
                ADDRESS = java.lang.invoke.MethodHandles.lookup().findVarHandle(Owner.class, "address", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Interpreter interpreter;
        private volatile long address;

        Owner(Interpreter interpreter, long address) {
            this.interpreter = interpreter;
            this.address = address;
        }

        /** True for the one caller that gave the reference back. */
        boolean release() {
            long a = (long) ADDRESS.getAndSet(this, 0L);
            if (a == 0) {
                return false;
            }
            interpreter.decref(a);
            return true;
        }

        @Override
        public void run() {
            release();
        }
    }
}
