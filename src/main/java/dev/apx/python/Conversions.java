package dev.apx.python;

import dev.apx.python.capi.Globals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Java values to Python objects and back, and the raw calls the public types are made of.
 * Everything here runs under the GIL; {@code long} values are {@code PyObject*}; "new" means the
 * caller owns the returned reference, "borrowed" that it does not.
 *
 * <pre>
 * Java                         Python      back to Java
 * null                         None        null
 * Boolean                      bool        Boolean
 * Byte/Short/Integer/Long      int         Long (BigInteger beyond 64 bits)
 * BigInteger                   int         Long or BigInteger
 * Float/Double                 float       Double
 * CharSequence                 str         String
 * byte[]                       bytes       byte[]
 * Object[]                     tuple       Object[]
 * Collection                   list        ArrayList
 * Map                          dict        LinkedHashMap
 * PyRef                        the object  (anything else comes back as a new PyRef)
 * </pre>
 */
final class Conversions {
    private static final long LONG_SUBCLASS = 1L << 24;
    private static final long LIST_SUBCLASS = 1L << 25;
    private static final long TUPLE_SUBCLASS = 1L << 26;
    private static final long BYTES_SUBCLASS = 1L << 27;
    private static final long UNICODE_SUBCLASS = 1L << 28;
    private static final long DICT_SUBCLASS = 1L << 29;

    private Conversions() {
    }

    /** A new reference or, when CPython returned NULL, the pending Python error as an exception. */
    static long checked(Gil gil, long result) {
        if (result == 0) {
            throw PythonException.fetch(gil);
        }
        return result;
    }

    static void checkedStatus(Gil gil, int status) {
        if (status < 0) {
            throw PythonException.fetch(gil);
        }
    }

    // --- Java -> Python

    /** New reference. */
    static long toPython(Gil gil, Object value) {
        return switch (value) {
            case null -> incref(gil, gil.globals.none);
            case PyRef ref -> incref(gil, ref.address(gil));
            case Boolean b -> incref(gil, b ? gil.globals.trueObject : gil.globals.falseObject);
            case Long l -> checked(gil, gil.capi.PyLong_FromLongLong(l));
            case Integer i -> checked(gil, gil.capi.PyLong_FromLongLong(i));
            case Short s -> checked(gil, gil.capi.PyLong_FromLongLong(s));
            case Byte b -> checked(gil, gil.capi.PyLong_FromLongLong(b));
            case BigInteger big -> bigInteger(gil, big);
            case Double d -> checked(gil, gil.capi.PyFloat_FromDouble(d));
            case Float f -> checked(gil, gil.capi.PyFloat_FromDouble(f));
            case CharSequence s -> string(gil, s.toString());
            case byte[] bytes -> bytes(gil, bytes);
            case Object[] items -> tuple(gil, items);
            case Collection<?> items -> list(gil, items);
            case Map<?, ?> map -> dict(gil, map);
            default -> throw new IllegalArgumentException("apx: cannot convert " + value.getClass().getName() + " to a Python object");
        };
    }

    private static long incref(Gil gil, long object) {
        gil.capi.Py_IncRef(object);
        return object;
    }

    private static long bigInteger(Gil gil, BigInteger value) {
        if (value.bitLength() < 64) {
            return checked(gil, gil.capi.PyLong_FromLongLong(value.longValue()));
        }
        return withCString(gil, value.toString(), s -> gil.capi.PyLong_FromString(MemorySegment.ofAddress(s), MemorySegment.NULL, 10));
    }

    /** An ASCII string (most are: header names, paths, attribute names) goes straight to scratch memory, without a byte[]. */
    static long string(Gil gil, String value) {
        Scratch scratch = gil.scratch();
        long mark = scratch.mark();
        try {
            long ascii = scratch.reserve(value.length());
            if (ascii != 0 && Scratch.writeAscii(ascii, value)) {
                return checked(gil, gil.capi.PyUnicode_FromStringAndSize(ascii, value.length()));
            }
        } finally {
            scratch.reset(mark);
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        return withNative(gil, utf8, false, s -> gil.capi.PyUnicode_FromStringAndSize(s, utf8.length));
    }

    private static long bytes(Gil gil, byte[] value) {
        long bytes = checked(gil, gil.capi.PyBytes_FromStringAndSize(0, value.length));
        Scratch.write(gil.capi.PyBytes_AsString(bytes), value);
        return bytes;
    }

    private static long tuple(Gil gil, Object[] items) {
        long tuple = checked(gil, gil.capi.PyTuple_New(items.length));
        try {
            for (int i = 0; i < items.length; i++) {
                gil.capi.PyTuple_SetItem(tuple, i, toPython(gil, items[i])); // steals
            }
            return tuple;
        } catch (RuntimeException e) {
            gil.capi.Py_DecRef(tuple);
            throw e;
        }
    }

    private static long list(Gil gil, Collection<?> items) {
        long list = checked(gil, gil.capi.PyList_New(items.size()));
        try {
            int i = 0;
            for (Object item : items) {
                gil.capi.PyList_SetItem(list, i++, toPython(gil, item)); // steals
            }
            return list;
        } catch (RuntimeException e) {
            gil.capi.Py_DecRef(list);
            throw e;
        }
    }

    private static long dict(Gil gil, Map<?, ?> map) {
        long dict = checked(gil, gil.capi.PyDict_New());
        try {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                long key = toPython(gil, entry.getKey());
                try {
                    long value = toPython(gil, entry.getValue());
                    try {
                        checkedStatus(gil, gil.capi.PyDict_SetItem(dict, key, value));
                    } finally {
                        gil.capi.Py_DecRef(value);
                    }
                } finally {
                    gil.capi.Py_DecRef(key);
                }
            }
            return dict;
        } catch (RuntimeException e) {
            gil.capi.Py_DecRef(dict);
            throw e;
        }
    }

    // --- Python -> Java

    /** Converts a borrowed object. */
    static Object toJava(Gil gil, long object) {
        if (object == gil.globals.none) {
            return null;
        }
        if (object == gil.globals.trueObject) {
            return Boolean.TRUE;
        }
        if (object == gil.globals.falseObject) {
            return Boolean.FALSE;
        }
        long type = Globals.typeOf(object);
        if (type == gil.globals.unicodeType) {
            return utf8(gil, object);
        }
        if (type == gil.globals.longType) {
            return integer(gil, object);
        }
        if (type == gil.globals.floatType) {
            return gil.capi.PyFloat_AsDouble(object);
        }
        if (type == gil.globals.bytesType) {
            return bytesOf(gil, object);
        }
        if (type == gil.globals.listType) {
            return listOf(gil, object);
        }
        if (type == gil.globals.tupleType) {
            return tupleOf(gil, object);
        }
        if (type == gil.globals.dictType) {
            return dictOf(gil, object);
        }
        return subclass(gil, object, type);
    }

    /** Instances of subclasses of the builtin types convert like their base; anything else stays Python. */
    private static Object subclass(Gil gil, long object, long type) {
        long flags = gil.capi.PyType_GetFlags(type);
        if ((flags & UNICODE_SUBCLASS) != 0) {
            return utf8(gil, object);
        }
        if ((flags & LONG_SUBCLASS) != 0) {
            return integer(gil, object);
        }
        if ((flags & BYTES_SUBCLASS) != 0) {
            return bytesOf(gil, object);
        }
        if ((flags & LIST_SUBCLASS) != 0) {
            return listOf(gil, object);
        }
        if ((flags & TUPLE_SUBCLASS) != 0) {
            return tupleOf(gil, object);
        }
        if ((flags & DICT_SUBCLASS) != 0) {
            return dictOf(gil, object);
        }
        if (gil.capi.PyType_IsSubtype(type, gil.globals.floatType) != 0) {
            return gil.capi.PyFloat_AsDouble(object);
        }
        return PyRef.fromBorrowed(gil, object);
    }

    static String utf8(Gil gil, long unicode) {
        return withScratch(gil, unicode, 8, Conversions::utf8);
    }

    private static String utf8(Gil gil, long unicode, long size) {
        long chars = gil.capi.PyUnicode_AsUTF8AndSize(unicode, size);
        if (chars == 0) {
            throw PythonException.fetch(gil);
        }
        return Scratch.readUtf8(chars, Scratch.getLong(size));
    }

    private static Object integer(Gil gil, long object) {
        return withScratch(gil, object, 8, Conversions::integer);
    }

    private static Object integer(Gil gil, long object, long overflow) {
        Scratch.setInt(overflow, 0);
        long value = gil.capi.PyLong_AsLongLongAndOverflow(object, overflow);
        if (value == -1 && gil.capi.PyErr_Occurred() != 0) {
            throw PythonException.fetch(gil);
        }
        if (Scratch.getInt(overflow) == 0) {
            return value;
        }
        return new BigInteger(str(gil, object));
    }

    private static byte[] bytesOf(Gil gil, long bytes) {
        long size = gil.capi.PyBytes_Size(bytes);
        return Scratch.read(gil.capi.PyBytes_AsString(bytes), size);
    }

    private static List<Object> listOf(Gil gil, long list) {
        long size = gil.capi.PyList_Size(list);
        List<Object> result = new ArrayList<>((int) size);
        for (long i = 0; i < size; i++) {
            result.add(toJava(gil, gil.capi.PyList_GetItem(list, i)));
        }
        return result;
    }

    private static Object[] tupleOf(Gil gil, long tuple) {
        Object[] result = new Object[(int) gil.capi.PyTuple_Size(tuple)];
        for (int i = 0; i < result.length; i++) {
            result[i] = toJava(gil, gil.capi.PyTuple_GetItem(tuple, i));
        }
        return result;
    }

    private static Map<Object, Object> dictOf(Gil gil, long dict) {
        Map<Object, Object> result = new LinkedHashMap<>();
        onScratch(gil, 24, slots -> {
            long position = slots.address();
            long key = position + 8;
            long value = position + 16;
            while (gil.capi.PyDict_Next(dict, position, key, value) != 0) {
                result.put(toJava(gil, Scratch.getLong(key)), toJava(gil, Scratch.getLong(value)));
            }
            return null;
        });
        return result;
    }

    // --- calls, attributes, modules

    static String str(Gil gil, long object) {
        long str = checked(gil, gil.capi.PyObject_Str(object));
        try {
            return utf8(gil, str);
        } finally {
            gil.capi.Py_DecRef(str);
        }
    }

    /** {@code getattr(object, name)}: new reference. */
    static long getAttr(Gil gil, long object, String name) {
        long cached = gil.interpreter().cachedName(gil, name);
        if (cached != 0) {
            return checked(gil, gil.capi.PyObject_GetAttr(object, cached));
        }
        long temporary = string(gil, name);
        try {
            return checked(gil, gil.capi.PyObject_GetAttr(object, temporary));
        } finally {
            gil.capi.Py_DecRef(temporary);
        }
    }

    static void setAttr(Gil gil, long object, String name, Object value) {
        long converted = toPython(gil, value);
        try {
            checkedStatus(gil, (int) withName(gil, name, nameObject -> gil.capi.PyObject_SetAttr(object, nameObject, converted)));
        } finally {
            gil.capi.Py_DecRef(converted);
        }
    }

    /** Runs {@code use} with a borrowed str for {@code name}. */
    private static long withName(Gil gil, String name, java.util.function.LongUnaryOperator use) {
        long cached = gil.interpreter().cachedName(gil, name);
        if (cached != 0) {
            return use.applyAsLong(cached);
        }
        long temporary = string(gil, name);
        try {
            return use.applyAsLong(temporary);
        } finally {
            gil.capi.Py_DecRef(temporary);
        }
    }

    /**
     * {@code callable(*args, **kwargs)}: new reference or 0 with an error set. The arguments are
     * converted straight into the vector the call takes; conversions that need scratch memory
     * themselves take it above the vector.
     */
    static long call(Gil gil, long callable, Object[] args, Map<String, ?> kwargs) {
        Scratch scratch = gil.scratch();
        long mark = scratch.mark();
        try {
            long vector = scratch.reserve(8L * Math.max(1, args.length));
            if (vector != 0) {
                return call(gil, callable, args, kwargs, vector);
            }
        } finally {
            scratch.reset(mark);
        }
        try (Arena arena = Arena.ofConfined()) {
            return call(gil, callable, args, kwargs, arena.allocate(8L * args.length).address());
        }
    }

    private static long call(Gil gil, long callable, Object[] args, Map<String, ?> kwargs, long vector) {
        int done = 0;
        long kwdict = 0;
        try {
            for (; done < args.length; done++) {
                Scratch.setLong(vector + 8L * done, toPython(gil, args[done]));
            }
            if (kwargs != null && !kwargs.isEmpty()) {
                kwdict = dict(gil, kwargs);
            }
            return gil.capi.PyObject_VectorcallDict(callable, vector, args.length, kwdict);
        } finally {
            for (int i = 0; i < done; i++) {
                gil.capi.Py_DecRef(Scratch.getLong(vector + 8L * i));
            }
            if (kwdict != 0) {
                gil.capi.Py_DecRef(kwdict);
            }
        }
    }

    /** New reference or 0 with an error set. */
    static long importModule(Gil gil, String name) {
        try (Arena arena = Arena.ofConfined()) {
            return gil.capi.PyImport_ImportModule(arena.allocateFrom(name));
        }
    }

    // --- native scratch memory

    interface NativeBody<T> {
        T apply(MemorySegment memory);
    }

    interface CStringCall {
        long apply(long cString);
    }

    /** A conversion of {@code object} that needs native memory beside it; a static method, so nothing is allocated per call. */
    private interface ScratchUse<T> {
        T apply(Gil gil, long object, long memory);
    }

    /** Runs {@code use} with {@code bytes} of native memory (not zeroed, by address) that is valid only during it. */
    private static <T> T withScratch(Gil gil, long object, long bytes, ScratchUse<T> use) {
        Scratch scratch = gil.scratch();
        long mark = scratch.mark();
        try {
            long memory = scratch.reserve(bytes);
            if (memory != 0) {
                return use.apply(gil, object, memory);
            }
        } finally {
            scratch.reset(mark);
        }
        try (Arena arena = Arena.ofConfined()) {
            return use.apply(gil, object, arena.allocate(bytes).address());
        }
    }

    /** Runs {@code body} with {@code bytes} of zeroed native memory that is valid only during it. */
    static <T> T onScratch(Gil gil, long bytes, NativeBody<T> body) {
        Scratch scratch = gil.scratch();
        long mark = scratch.mark();
        try {
            MemorySegment memory = scratch.allocate(bytes);
            if (memory != null) {
                return body.apply(memory);
            }
        } finally {
            scratch.reset(mark);
        }
        try (Arena arena = Arena.ofConfined()) {
            return body.apply(arena.allocate(bytes));
        }
    }

    /** Calls a C function that takes {@code data} (NUL-terminated when asked) and returns a new reference. */
    private static long withNative(Gil gil, byte[] data, boolean terminate, CStringCall call) {
        long result = onScratch(gil, data.length + (terminate ? 1 : 0), memory -> {
            MemorySegment.copy(data, 0, memory, JAVA_BYTE, 0, data.length);
            return call.apply(memory.address());
        });
        return checked(gil, result);
    }

    private static long withCString(Gil gil, String value, CStringCall call) {
        return withNative(gil, value.getBytes(StandardCharsets.UTF_8), true, call);
    }
}
