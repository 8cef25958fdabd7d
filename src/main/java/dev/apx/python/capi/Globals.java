package dev.apx.python.capi;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Addresses of CPython's static objects (None, True, the builtin types, exception classes),
 * read once after the interpreter is initialised, and the two raw object-header reads apx does.
 *
 * <p>Header layout ({@code ob_refcnt} then {@code ob_type}) is the same on 3.11-3.13 for builds
 * with a GIL; free-threaded builds are refused before we get here.
 */
public final class Globals {
    /** The whole address space, for reading object headers by address. */
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final long OB_TYPE_OFFSET = 8;

    public static final long NONE = data("_Py_NoneStruct");
    public static final long TRUE = data("_Py_TrueStruct");
    public static final long FALSE = data("_Py_FalseStruct");

    public static final long BOOL_TYPE = data("PyBool_Type");
    public static final long LONG_TYPE = data("PyLong_Type");
    public static final long FLOAT_TYPE = data("PyFloat_Type");
    public static final long UNICODE_TYPE = data("PyUnicode_Type");
    public static final long BYTES_TYPE = data("PyBytes_Type");
    public static final long LIST_TYPE = data("PyList_Type");
    public static final long TUPLE_TYPE = data("PyTuple_Type");
    public static final long DICT_TYPE = data("PyDict_Type");

    public static final long EXC_RUNTIME_ERROR = pointer("PyExc_RuntimeError");
    public static final long EXC_TYPE_ERROR = pointer("PyExc_TypeError");

    private Globals() {
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
    private static long data(String symbol) {
        return LibPython.current().require(symbol).address();
    }

    /** The value of a {@code PyObject*} global, e.g. {@code PyExc_RuntimeError}. */
    private static long pointer(String symbol) {
        return readPointer(data(symbol));
    }
}
