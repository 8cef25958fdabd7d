package dev.apx.python.capi;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Addresses of one runtime's static objects (None, True, the builtin types, exception classes),
 * read once after that runtime is initialised, and the raw object-header reads apx does (the same
 * for every runtime).
 *
 * <p>Header layout ({@code ob_refcnt} then {@code ob_type}) is the same on 3.11-3.15 for builds
 * with a GIL; free-threaded builds are refused before we get here.
 */
public final class Globals {
    /** The whole address space, for reading object headers by address. */
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final long OB_TYPE_OFFSET = 8;

    public final long none;
    public final long trueObject;
    public final long falseObject;

    public final long boolType;
    public final long longType;
    public final long floatType;
    public final long unicodeType;
    public final long bytesType;
    public final long listType;
    public final long tupleType;
    public final long dictType;

    public final long excRuntimeError;
    public final long excTypeError;

    public Globals(LibPython library) {
        none = data(library, "_Py_NoneStruct");
        trueObject = data(library, "_Py_TrueStruct");
        falseObject = data(library, "_Py_FalseStruct");
        boolType = data(library, "PyBool_Type");
        longType = data(library, "PyLong_Type");
        floatType = data(library, "PyFloat_Type");
        unicodeType = data(library, "PyUnicode_Type");
        bytesType = data(library, "PyBytes_Type");
        listType = data(library, "PyList_Type");
        tupleType = data(library, "PyTuple_Type");
        dictType = data(library, "PyDict_Type");
        excRuntimeError = pointer(library, "PyExc_RuntimeError");
        excTypeError = pointer(library, "PyExc_TypeError");
    }

    /** {@code Py_TYPE(o)}: borrowed. */
    public static long typeOf(long object) {
        return ALL.get(JAVA_LONG, object + OB_TYPE_OFFSET);
    }

    /**
     * {@code Py_SIZE(o)} read without the GIL: a list's length as some recent moment saw it
     * (one aligned word, so never torn). Only for heuristics that confirm under the GIL.
     */
    public static long sizeUnlocked(long varObject) {
        return ALL.get(JAVA_LONG, varObject + OB_TYPE_OFFSET + 8);
    }

    /** Reads a {@code PyObject*} stored at {@code address} (e.g. an out-parameter). */
    public static long readPointer(long address) {
        return ALL.get(JAVA_LONG, address);
    }

    /** The address of a static object, e.g. {@code _Py_NoneStruct}. */
    private static long data(LibPython library, String symbol) {
        return library.require(symbol).address();
    }

    /** The value of a {@code PyObject*} global, e.g. {@code PyExc_RuntimeError}. */
    private static long pointer(LibPython library, String symbol) {
        return readPointer(data(library, symbol));
    }
}
