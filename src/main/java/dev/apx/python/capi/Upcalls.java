package dev.apx.python.capi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Python-callable functions whose body is Java: a {@code PyCFunction} (METH_FASTCALL) over one
 * upcall stub, with a capsule as {@code self} that carries the Java-side id and tells Java, from
 * its destructor, when Python dropped the function.
 *
 * <p>An exception must never leave an upcall stub (the JVM would abort), so the trampolines catch
 * everything; the {@link Target} is expected to turn failures into a Python error itself.
 */
public final class Upcalls {
    /** What Python calls. Runs on the calling Python thread, with the GIL held. */
    public interface Target {
        /** {@code PyObject* f(PyObject* self, PyObject* const* args, Py_ssize_t nargs)}; 0 with a Python error set on failure. */
        long call(long id, long args, long nargs);

        /** The function with this id is gone from Python. */
        void released(long id);
    }

    private static final int METH_FASTCALL = 0x0080;
    private static final StructLayout METHOD_DEF = MemoryLayout.structLayout(
            ADDRESS.withName("ml_name"), ADDRESS.withName("ml_meth"), JAVA_INT.withName("ml_flags"),
            MemoryLayout.paddingLayout(4), ADDRESS.withName("ml_doc"));

    private final CApi capi;
    private final Target target;
    private final MemorySegment callStub;
    private final MemorySegment destructorStub;

    /**
     * Upcall stubs of one runtime, bound to this object: the stub a function calls knows its
     * runtime, so the capsule is read with that runtime's {@code PyCapsule_GetPointer}.
     */
    public Upcalls(CApi capi, Target target) {
        this.capi = capi;
        this.target = target;
        try {
            Linker linker = Linker.nativeLinker();
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            callStub = linker.upcallStub(
                    lookup.findVirtual(Upcalls.class, "call", MethodType.methodType(long.class, long.class, long.class, long.class)).bindTo(this),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Arena.global());
            destructorStub = linker.upcallStub(
                    lookup.findVirtual(Upcalls.class, "destroy", MethodType.methodType(void.class, long.class)).bindTo(this),
                    FunctionDescriptor.ofVoid(JAVA_LONG), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A new reference to a Python function named {@code name} that calls the target with {@code id}.
     * The returned segment holds the function's {@code PyMethodDef} and name: keep it reachable as
     * long as the function may be called (until {@link Target#released}).
     */
    public Function newFunction(String name, long id) {
        Arena arena = Arena.ofAuto();
        MemorySegment def = arena.allocate(METHOD_DEF);
        def.set(ADDRESS, METHOD_DEF.byteOffset(MemoryLayout.PathElement.groupElement("ml_name")), arena.allocateFrom(name));
        def.set(ADDRESS, METHOD_DEF.byteOffset(MemoryLayout.PathElement.groupElement("ml_meth")), callStub);
        def.set(JAVA_INT, METHOD_DEF.byteOffset(MemoryLayout.PathElement.groupElement("ml_flags")), METH_FASTCALL);
        long capsule = capi.PyCapsule_New(MemorySegment.ofAddress(id), MemorySegment.NULL, destructorStub);
        if (capsule == 0) {
            return new Function(0, def);
        }
        long function = capi.PyCFunction_NewEx(def, capsule, 0);
        capi.Py_DecRef(capsule); // the function owns it now (or, on failure, the capsule dies and releases id)
        return new Function(function, def);
    }

    /** A new function reference (0 when CPython failed, with its error set) and its definition memory. */
    public record Function(long address, MemorySegment definition) {
    }

    @SuppressWarnings("unused") // called from native code
    private long call(long self, long args, long nargs) {
        try {
            long id = capi.PyCapsule_GetPointer(self, MemorySegment.NULL).address();
            return target.call(id, args, nargs);
        } catch (Throwable t) {
            // The target translates its own failures; this is the last line before a JVM abort.
            return 0;
        }
    }

    @SuppressWarnings("unused") // called from native code
    private void destroy(long capsule) {
        try {
            target.released(capi.PyCapsule_GetPointer(capsule, MemorySegment.NULL).address());
        } catch (Throwable ignored) {
            // Nothing can be reported from a destructor; the id stays registered.
        }
    }
}
