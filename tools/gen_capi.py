# Generates src/main/java/dev/apx/python/capi/CApi.java: one lazily bound holder per C function
# (jextract's idiom). Usage: python3 tools/gen_capi.py > src/main/java/dev/apx/python/capi/CApi.java
spec = """
# life cycle and threads
V Py_SetProgramName(P)
P Py_DecodeLocale(P, P)
V Py_InitializeEx(I)
P PyEval_SaveThread()
V PyEval_RestoreThread(P)
I PyGILState_Ensure()
# reference counts
V Py_IncRef(O)
V Py_DecRef(O)
# errors
O PyErr_Occurred()
V PyErr_Fetch(P, P, P)
V PyErr_NormalizeException(P, P, P)
V PyErr_SetObject(O, O)
V PyErr_Clear()
I PyException_SetTraceback(O, O)
# objects and calls
O PyObject_GetAttr(O, O)
I PyObject_SetAttr(O, O, O)
O PyObject_Str(O)
O PyObject_Repr(O)
I PyObject_IsTrue(O)
O PyObject_VectorcallDict(O, P, L, O)
L PyType_GetFlags(O)
I PyType_IsSubtype(O, O)
# modules
O PyImport_ImportModule(P)
# scalars
O PyLong_FromLongLong(L)
L PyLong_AsLongLongAndOverflow(O, P)
O PyLong_FromString(P, P, I)
O PyFloat_FromDouble(D)
D PyFloat_AsDouble(O)
O PyUnicode_FromStringAndSize(P, L)
P PyUnicode_AsUTF8AndSize(O, P)
O PyBytes_FromStringAndSize(P, L)
P PyBytes_AsString(O)
L PyBytes_Size(O)
# containers
O PyList_New(L)
I PyList_SetItem(O, L, O)
O PyList_GetItem(O, L)
L PyList_Size(O)
O PyTuple_New(L)
I PyTuple_SetItem(O, L, O)
O PyTuple_GetItem(O, L)
L PyTuple_Size(O)
O PyDict_New()
I PyDict_SetItem(O, O, O)
I PyDict_Next(O, P, P, P)
# Java callables
O PyCFunction_NewEx(P, O, O)
O PyCapsule_New(P, P, P)
P PyCapsule_GetPointer(O, P)
# coroutines and contexts
I PyIter_Send(O, O, P)
O PyContext_CopyCurrent()
O PyContext_Copy(O)
O PyContext_New()
I PyContext_Enter(O)
I PyContext_Exit(O)
L PyObject_Size(O)
"""
J = {'O': 'long', 'P': 'MemorySegment', 'L': 'long', 'I': 'int', 'D': 'double', 'V': 'void'}
LAY = {'O': 'JAVA_LONG', 'P': 'ADDRESS', 'L': 'JAVA_LONG', 'I': 'JAVA_INT', 'D': 'JAVA_DOUBLE'}
out = []
for line in spec.strip().splitlines():
    line = line.strip()
    if line.startswith('#'):
        out.append(f"\n    // --- {line[1:].strip()}\n")
        continue
    ret, rest = line.split(' ', 1)
    name, args = rest.split('(')
    args = [a.strip() for a in args.rstrip(')').split(',') if a.strip()]
    params = ', '.join(f"{J[a]} a{i}" for i, a in enumerate(args))
    call = ', '.join(f"a{i}" for i in range(len(args)))
    lays = ', '.join(LAY[a] for a in args)
    if ret == 'V':
        fd = f"FunctionDescriptor.ofVoid({lays})"
        body = f"{name}.H.invokeExact({call});"
    else:
        fd = f"FunctionDescriptor.of({LAY[ret]}{', ' if lays else ''}{lays})"
        body = f"return ({J[ret]}) {name}.H.invokeExact({call});"
    out.append(f"""    public static {J[ret]} {name}({params}) {{
        try {{
            {body}
        }} catch (Throwable t) {{
            throw Binder.rethrow(t);
        }}
    }}

    private static final class {name} {{
        static final MethodHandle H = Binder.function("{name}", {fd});
    }}
""")
print("""package dev.apx.python.capi;

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
""" + '\n'.join(out) + "}")
