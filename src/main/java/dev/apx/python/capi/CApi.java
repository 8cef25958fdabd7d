package dev.apx.python.capi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The CPython C-API functions apx uses: an explicit allowlist, each bound once, lazily, in its own
 * holder class (jextract's idiom), so a function apx never calls is never looked up.
 *
 * <p>{@code PyObject*} travels as a {@code long} address (same ABI as a pointer on 64-bit Linux),
 * which keeps the hot paths free of segment allocation. Buffers and C strings are
 * {@link MemorySegment}s. Functions returning a new reference are documented as such by CPython;
 * ownership is managed one layer up, in {@code dev.apx.python}.
 *
 * <p>Thread rule: every function here except {@code Py_DecodeLocale}, {@code PyGILState_*} and
 * {@code PyEval_RestoreThread} must be called by a thread that holds the GIL.
 *
 * <p>Generated from a one-line-per-function table; edit the table, not the holders, when one is
 * added (see docs/python-layer.md).
 */
@SuppressWarnings("unused")
public final class CApi {
    private CApi() {
    }

    // --- life cycle and threads

    public static void Py_SetProgramName(MemorySegment a0) {
        try {
            Py_SetProgramName.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class Py_SetProgramName {
        static final MethodHandle H = Binder.function("Py_SetProgramName", FunctionDescriptor.ofVoid(ADDRESS));
    }

    public static MemorySegment Py_DecodeLocale(MemorySegment a0, MemorySegment a1) {
        try {
            return (MemorySegment) Py_DecodeLocale.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class Py_DecodeLocale {
        static final MethodHandle H = Binder.function("Py_DecodeLocale", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    }

    public static void Py_InitializeEx(int a0) {
        try {
            Py_InitializeEx.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class Py_InitializeEx {
        static final MethodHandle H = Binder.function("Py_InitializeEx", FunctionDescriptor.ofVoid(JAVA_INT));
    }

    public static MemorySegment PyEval_SaveThread() {
        try {
            return (MemorySegment) PyEval_SaveThread.H.invokeExact();
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyEval_SaveThread {
        static final MethodHandle H = Binder.function("PyEval_SaveThread", FunctionDescriptor.of(ADDRESS));
    }

    public static void PyEval_RestoreThread(MemorySegment a0) {
        try {
            PyEval_RestoreThread.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyEval_RestoreThread {
        static final MethodHandle H = Binder.function("PyEval_RestoreThread", FunctionDescriptor.ofVoid(ADDRESS));
    }

    public static int PyGILState_Ensure() {
        try {
            return (int) PyGILState_Ensure.H.invokeExact();
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyGILState_Ensure {
        static final MethodHandle H = Binder.function("PyGILState_Ensure", FunctionDescriptor.of(JAVA_INT));
    }


    // --- reference counts

    public static void Py_IncRef(long a0) {
        try {
            Py_IncRef.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class Py_IncRef {
        static final MethodHandle H = Binder.function("Py_IncRef", FunctionDescriptor.ofVoid(JAVA_LONG));
    }

    public static void Py_DecRef(long a0) {
        try {
            Py_DecRef.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class Py_DecRef {
        static final MethodHandle H = Binder.function("Py_DecRef", FunctionDescriptor.ofVoid(JAVA_LONG));
    }


    // --- errors

    public static long PyErr_Occurred() {
        try {
            return (long) PyErr_Occurred.H.invokeExact();
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyErr_Occurred {
        static final MethodHandle H = Binder.function("PyErr_Occurred", FunctionDescriptor.of(JAVA_LONG));
    }

    public static void PyErr_Fetch(MemorySegment a0, MemorySegment a1, MemorySegment a2) {
        try {
            PyErr_Fetch.H.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyErr_Fetch {
        static final MethodHandle H = Binder.function("PyErr_Fetch", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
    }

    public static void PyErr_NormalizeException(MemorySegment a0, MemorySegment a1, MemorySegment a2) {
        try {
            PyErr_NormalizeException.H.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyErr_NormalizeException {
        static final MethodHandle H = Binder.function("PyErr_NormalizeException", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
    }

    public static void PyErr_SetObject(long a0, long a1) {
        try {
            PyErr_SetObject.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyErr_SetObject {
        static final MethodHandle H = Binder.function("PyErr_SetObject", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG));
    }

    public static void PyErr_Clear() {
        try {
            PyErr_Clear.H.invokeExact();
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyErr_Clear {
        static final MethodHandle H = Binder.function("PyErr_Clear", FunctionDescriptor.ofVoid());
    }

    public static int PyException_SetTraceback(long a0, long a1) {
        try {
            return (int) PyException_SetTraceback.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyException_SetTraceback {
        static final MethodHandle H = Binder.function("PyException_SetTraceback", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    }


    // --- objects and calls

    public static long PyObject_GetAttr(long a0, long a1) {
        try {
            return (long) PyObject_GetAttr.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyObject_GetAttr {
        static final MethodHandle H = Binder.function("PyObject_GetAttr", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }

    public static int PyObject_SetAttr(long a0, long a1, long a2) {
        try {
            return (int) PyObject_SetAttr.H.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyObject_SetAttr {
        static final MethodHandle H = Binder.function("PyObject_SetAttr", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }

    public static long PyObject_Str(long a0) {
        try {
            return (long) PyObject_Str.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyObject_Str {
        static final MethodHandle H = Binder.function("PyObject_Str", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }

    public static long PyObject_Repr(long a0) {
        try {
            return (long) PyObject_Repr.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyObject_Repr {
        static final MethodHandle H = Binder.function("PyObject_Repr", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }

    public static int PyObject_IsTrue(long a0) {
        try {
            return (int) PyObject_IsTrue.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyObject_IsTrue {
        static final MethodHandle H = Binder.function("PyObject_IsTrue", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    }

    public static long PyObject_VectorcallDict(long a0, MemorySegment a1, long a2, long a3) {
        try {
            return (long) PyObject_VectorcallDict.H.invokeExact(a0, a1, a2, a3);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyObject_VectorcallDict {
        static final MethodHandle H = Binder.function("PyObject_VectorcallDict", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
    }

    public static long PyType_GetFlags(long a0) {
        try {
            return (long) PyType_GetFlags.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyType_GetFlags {
        static final MethodHandle H = Binder.function("PyType_GetFlags", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }

    public static int PyType_IsSubtype(long a0, long a1) {
        try {
            return (int) PyType_IsSubtype.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyType_IsSubtype {
        static final MethodHandle H = Binder.function("PyType_IsSubtype", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    }


    // --- modules

    public static long PyImport_ImportModule(MemorySegment a0) {
        try {
            return (long) PyImport_ImportModule.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyImport_ImportModule {
        static final MethodHandle H = Binder.function("PyImport_ImportModule", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    }


    // --- scalars

    public static long PyLong_FromLongLong(long a0) {
        try {
            return (long) PyLong_FromLongLong.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyLong_FromLongLong {
        static final MethodHandle H = Binder.function("PyLong_FromLongLong", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }

    public static long PyLong_AsLongLongAndOverflow(long a0, MemorySegment a1) {
        try {
            return (long) PyLong_AsLongLongAndOverflow.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyLong_AsLongLongAndOverflow {
        static final MethodHandle H = Binder.function("PyLong_AsLongLongAndOverflow", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, ADDRESS));
    }

    public static long PyLong_FromString(MemorySegment a0, MemorySegment a1, int a2) {
        try {
            return (long) PyLong_FromString.H.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyLong_FromString {
        static final MethodHandle H = Binder.function("PyLong_FromString", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_INT));
    }

    public static long PyFloat_FromDouble(double a0) {
        try {
            return (long) PyFloat_FromDouble.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyFloat_FromDouble {
        static final MethodHandle H = Binder.function("PyFloat_FromDouble", FunctionDescriptor.of(JAVA_LONG, JAVA_DOUBLE));
    }

    public static double PyFloat_AsDouble(long a0) {
        try {
            return (double) PyFloat_AsDouble.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyFloat_AsDouble {
        static final MethodHandle H = Binder.function("PyFloat_AsDouble", FunctionDescriptor.of(JAVA_DOUBLE, JAVA_LONG));
    }

    public static long PyUnicode_FromStringAndSize(MemorySegment a0, long a1) {
        try {
            return (long) PyUnicode_FromStringAndSize.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyUnicode_FromStringAndSize {
        static final MethodHandle H = Binder.function("PyUnicode_FromStringAndSize", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG));
    }

    public static MemorySegment PyUnicode_AsUTF8AndSize(long a0, MemorySegment a1) {
        try {
            return (MemorySegment) PyUnicode_AsUTF8AndSize.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyUnicode_AsUTF8AndSize {
        static final MethodHandle H = Binder.function("PyUnicode_AsUTF8AndSize", FunctionDescriptor.of(ADDRESS, JAVA_LONG, ADDRESS));
    }

    public static long PyBytes_FromStringAndSize(MemorySegment a0, long a1) {
        try {
            return (long) PyBytes_FromStringAndSize.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyBytes_FromStringAndSize {
        static final MethodHandle H = Binder.function("PyBytes_FromStringAndSize", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG));
    }

    public static MemorySegment PyBytes_AsString(long a0) {
        try {
            return (MemorySegment) PyBytes_AsString.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyBytes_AsString {
        static final MethodHandle H = Binder.function("PyBytes_AsString", FunctionDescriptor.of(ADDRESS, JAVA_LONG));
    }

    public static long PyBytes_Size(long a0) {
        try {
            return (long) PyBytes_Size.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyBytes_Size {
        static final MethodHandle H = Binder.function("PyBytes_Size", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }


    // --- containers

    public static long PyList_New(long a0) {
        try {
            return (long) PyList_New.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyList_New {
        static final MethodHandle H = Binder.function("PyList_New", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }

    public static int PyList_SetItem(long a0, long a1, long a2) {
        try {
            return (int) PyList_SetItem.H.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyList_SetItem {
        static final MethodHandle H = Binder.function("PyList_SetItem", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }

    public static long PyList_GetItem(long a0, long a1) {
        try {
            return (long) PyList_GetItem.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyList_GetItem {
        static final MethodHandle H = Binder.function("PyList_GetItem", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }

    public static long PyList_Size(long a0) {
        try {
            return (long) PyList_Size.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyList_Size {
        static final MethodHandle H = Binder.function("PyList_Size", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }

    public static long PyTuple_New(long a0) {
        try {
            return (long) PyTuple_New.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyTuple_New {
        static final MethodHandle H = Binder.function("PyTuple_New", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }

    public static int PyTuple_SetItem(long a0, long a1, long a2) {
        try {
            return (int) PyTuple_SetItem.H.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyTuple_SetItem {
        static final MethodHandle H = Binder.function("PyTuple_SetItem", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }

    public static long PyTuple_GetItem(long a0, long a1) {
        try {
            return (long) PyTuple_GetItem.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyTuple_GetItem {
        static final MethodHandle H = Binder.function("PyTuple_GetItem", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }

    public static long PyTuple_Size(long a0) {
        try {
            return (long) PyTuple_Size.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyTuple_Size {
        static final MethodHandle H = Binder.function("PyTuple_Size", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }

    public static long PyDict_New() {
        try {
            return (long) PyDict_New.H.invokeExact();
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyDict_New {
        static final MethodHandle H = Binder.function("PyDict_New", FunctionDescriptor.of(JAVA_LONG));
    }

    public static int PyDict_SetItem(long a0, long a1, long a2) {
        try {
            return (int) PyDict_SetItem.H.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyDict_SetItem {
        static final MethodHandle H = Binder.function("PyDict_SetItem", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }

    public static int PyDict_Next(long a0, MemorySegment a1, MemorySegment a2, MemorySegment a3) {
        try {
            return (int) PyDict_Next.H.invokeExact(a0, a1, a2, a3);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyDict_Next {
        static final MethodHandle H = Binder.function("PyDict_Next", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS));
    }


    // --- Java callables

    public static long PyCFunction_NewEx(MemorySegment a0, long a1, long a2) {
        try {
            return (long) PyCFunction_NewEx.H.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyCFunction_NewEx {
        static final MethodHandle H = Binder.function("PyCFunction_NewEx", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
    }

    public static long PyCapsule_New(MemorySegment a0, MemorySegment a1, MemorySegment a2) {
        try {
            return (long) PyCapsule_New.H.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyCapsule_New {
        static final MethodHandle H = Binder.function("PyCapsule_New", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS));
    }

    public static MemorySegment PyCapsule_GetPointer(long a0, MemorySegment a1) {
        try {
            return (MemorySegment) PyCapsule_GetPointer.H.invokeExact(a0, a1);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyCapsule_GetPointer {
        static final MethodHandle H = Binder.function("PyCapsule_GetPointer", FunctionDescriptor.of(ADDRESS, JAVA_LONG, ADDRESS));
    }


    // --- coroutines and contexts

    public static int PyIter_Send(long a0, long a1, MemorySegment a2) {
        try {
            return (int) PyIter_Send.H.invokeExact(a0, a1, a2);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyIter_Send {
        static final MethodHandle H = Binder.function("PyIter_Send", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS));
    }

    public static long PyContext_CopyCurrent() {
        try {
            return (long) PyContext_CopyCurrent.H.invokeExact();
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyContext_CopyCurrent {
        static final MethodHandle H = Binder.function("PyContext_CopyCurrent", FunctionDescriptor.of(JAVA_LONG));
    }

    public static long PyContext_Copy(long a0) {
        try {
            return (long) PyContext_Copy.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyContext_Copy {
        static final MethodHandle H = Binder.function("PyContext_Copy", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }

    public static long PyContext_New() {
        try {
            return (long) PyContext_New.H.invokeExact();
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyContext_New {
        static final MethodHandle H = Binder.function("PyContext_New", FunctionDescriptor.of(JAVA_LONG));
    }

    public static int PyContext_Enter(long a0) {
        try {
            return (int) PyContext_Enter.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyContext_Enter {
        static final MethodHandle H = Binder.function("PyContext_Enter", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    }

    public static int PyContext_Exit(long a0) {
        try {
            return (int) PyContext_Exit.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyContext_Exit {
        static final MethodHandle H = Binder.function("PyContext_Exit", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    }

    public static long PyObject_Size(long a0) {
        try {
            return (long) PyObject_Size.H.invokeExact(a0);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
    }

    private static final class PyObject_Size {
        static final MethodHandle H = Binder.function("PyObject_Size", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    }
}
