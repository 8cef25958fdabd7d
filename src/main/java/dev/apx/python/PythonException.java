package dev.apx.python;

import dev.apx.python.capi.Globals;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A Python exception seen from Java: its type name ({@code ValueError}, {@code pkg.mod.MyError}),
 * its message ({@code str(exc)}) and the traceback text Python would print. The exception object
 * itself is kept, so a Java callable that lets this propagate re-raises the very same object in
 * Python.
 */
public final class PythonException extends RuntimeException {
    private final String pythonType;
    private final String pythonMessage;
    private final String pythonTraceback;
    private final transient PyRef exception;

    PythonException(String pythonType, String pythonMessage, String pythonTraceback, PyRef exception) {
        super(pythonMessage.isEmpty() ? pythonType : pythonType + ": " + pythonMessage);
        this.pythonType = pythonType;
        this.pythonMessage = pythonMessage;
        this.pythonTraceback = pythonTraceback;
        this.exception = exception;
    }

    /** {@code ValueError} for builtins, {@code module.QualName} otherwise. */
    public String pythonType() {
        return pythonType;
    }

    /** {@code str(exception)} */
    public String pythonMessage() {
        return pythonMessage;
    }

    /** The formatted traceback, as {@code traceback.format_exception} gives it. */
    public String pythonTraceback() {
        return pythonTraceback;
    }

    /** The Python exception object (owned by this Java exception). */
    public PyRef exception() {
        return exception;
    }

    /** Takes the pending Python error (clearing it) and describes it. */
    static PythonException fetch(Gil gil) {
        long value = Conversions.onScratch(gil, 24, slots -> {
            MemorySegment type = slots.asSlice(0, 8);
            MemorySegment val = slots.asSlice(8, 8);
            MemorySegment traceback = slots.asSlice(16, 8);
            gil.capi.PyErr_Fetch(type, val, traceback);
            if (type.get(JAVA_LONG, 0) == 0) {
                return 0L;
            }
            gil.capi.PyErr_NormalizeException(type, val, traceback);
            long exc = val.get(JAVA_LONG, 0);
            long tb = traceback.get(JAVA_LONG, 0);
            if (tb != 0 && exc != 0) {
                gil.capi.PyException_SetTraceback(exc, tb);
            }
            xdecref(gil, type.get(JAVA_LONG, 0));
            xdecref(gil, tb);
            return exc;
        });
        if (value == 0) {
            return new PythonException("SystemError", "a C-API call failed without setting a Python error", "", null);
        }
        PyRef exception = PyRef.owned(gil, value);
        Interpreter.ErrorHelpers helpers = gil.interpreter().errorHelpers();
        String type = describe(gil, helpers == null ? 0 : helpers.typeName(), exception, "BaseException");
        String message = safeStr(gil, value);
        String traceback = describe(gil, helpers == null ? 0 : helpers.format(), exception, "");
        return new PythonException(type, message, traceback, exception);
    }

    /** Calls a helper of _apx._errors on the exception; never throws (that would mask the original). */
    private static String describe(Gil gil, long helper, PyRef exception, String fallback) {
        if (helper == 0) {
            return fallback;
        }
        try {
            long result = Conversions.call(gil, helper, new Object[] {exception}, null);
            if (result == 0) {
                gil.capi.PyErr_Clear();
                return fallback;
            }
            try {
                return Conversions.utf8(gil, result);
            } finally {
                gil.capi.Py_DecRef(result);
            }
        } catch (RuntimeException e) {
            gil.capi.PyErr_Clear();
            return fallback;
        }
    }

    private static String safeStr(Gil gil, long exc) {
        long str = gil.capi.PyObject_Str(exc);
        if (str == 0) {
            gil.capi.PyErr_Clear();
            return "<exception str() failed>";
        }
        try {
            return Conversions.utf8(gil, str);
        } catch (RuntimeException e) {
            gil.capi.PyErr_Clear();
            return "<exception str() is not UTF-8>";
        } finally {
            gil.capi.Py_DecRef(str);
        }
    }

    private static void xdecref(Gil gil, long object) {
        if (object != 0) {
            gil.capi.Py_DecRef(object);
        }
    }

    /** Sets {@code error} as the pending Python error of this thread (the upcall's way to fail). */
    static void raise(Gil gil, Throwable error) {
        if (error instanceof PythonException python && python.exception != null && !python.exception.isClosed()) {
            long exc = python.exception.address(gil);
            gil.capi.PyErr_SetObject(Globals.typeOf(exc), exc);
            return;
        }
        String text = error.getMessage() == null ? error.getClass().getName() : error.getClass().getName() + ": " + error.getMessage();
        long message = 0;
        try {
            message = Conversions.string(gil, text);
            gil.capi.PyErr_SetObject(gil.interpreter().errorHelpers().javaError(), message);
        } catch (RuntimeException e) {
            gil.capi.PyErr_Clear();
            long fallback = gil.capi.PyUnicode_FromStringAndSize(0, 0);
            gil.capi.PyErr_SetObject(gil.globals.excRuntimeError, fallback);
            xdecref(gil, fallback);
        } finally {
            xdecref(gil, message);
        }
    }
}
