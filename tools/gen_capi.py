# Generates src/main/java/dev/apx/python/capi/CApi.java: per C function, one static final downcall
# handle taking the target address first (made lazily in a holder class, jextract's idiom), and one
# final field per runtime holding that runtime's address of the function. Usage: python3 tools/gen_capi.py > src/main/java/dev/apx/python/capi/CApi.java
# Kinds: O PyObject* and A a native buffer's address, both as a Java long (a pointer's ABI on 64-bit
# Linux; no MemorySegment allocated per call), P a pointer as a MemorySegment, L long, I int, D double, V void.
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
O PyObject_VectorcallDict(O, A, L, O)
L PyType_GetFlags(O)
I PyType_IsSubtype(O, O)
# modules
O PyImport_ImportModule(P)
# scalars
O PyLong_FromLongLong(L)
L PyLong_AsLongLongAndOverflow(O, A)
O PyLong_FromString(P, P, I)
O PyFloat_FromDouble(D)
D PyFloat_AsDouble(O)
O PyUnicode_FromStringAndSize(A, L)
A PyUnicode_AsUTF8AndSize(O, A)
O PyBytes_FromStringAndSize(A, L)
A PyBytes_AsString(O)
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
I PyDict_Next(O, A, A, A)
# Java callables
O PyCFunction_NewEx(P, O, O)
O PyCapsule_New(P, P, P)
P PyCapsule_GetPointer(O, P)
# coroutines and contexts
I PyIter_Send(O, O, A)
O PyContext_CopyCurrent()
O PyContext_Copy(O)
O PyContext_New()
I PyContext_Enter(O)
I PyContext_Exit(O)
L PyObject_Size(O)
"""
J = {'O': 'long', 'A': 'long', 'P': 'MemorySegment', 'L': 'long', 'I': 'int', 'D': 'double', 'V': 'void'}
LAY = {'O': 'JAVA_LONG', 'A': 'JAVA_LONG', 'P': 'ADDRESS', 'L': 'JAVA_LONG', 'I': 'JAVA_INT', 'D': 'JAVA_DOUBLE'}
fields, ctor, methods = [], [], []
for line in spec.strip().splitlines():
    line = line.strip()
    if line.startswith('#'):
        methods.append(f"\n    // --- {line[1:].strip()}\n")
        continue
    ret, rest = line.split(' ', 1)
    name, args = rest.split('(')
    args = [a.strip() for a in args.rstrip(')').split(',') if a.strip()]
    params = ', '.join(f"{J[a]} a{i}" for i, a in enumerate(args))
    call = ', '.join([name] + [f"a{i}" for i in range(len(args))])
    lays = ', '.join(LAY[a] for a in args)
    if ret == 'V':
        fd = f"FunctionDescriptor.ofVoid({lays})"
        body = f"{name}Handle.H.invokeExact({call});"
    else:
        fd = f"FunctionDescriptor.of({LAY[ret]}{', ' if lays else ''}{lays})"
        body = f"return ({J[ret]}) {name}Handle.H.invokeExact({call});"
    fields.append(f"    private final MemorySegment {name};")
    ctor.append(f'        {name} = library.require("{name}");')
    methods.append(f"""    public {J[ret]} {name}({params}) {{
        try {{
            {body}
        }} catch (Throwable t) {{
            throw Binder.rethrow(t);
        }}
    }}

    private static final class {name}Handle {{
        static final MethodHandle H = Binder.handle({fd});
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
 * The CPython C-API functions apx uses, bound to one loaded libpython (one runtime: the base
 * namespace's, or one {@code dlmopen} namespace's): an explicit allowlist.
 *
 * <p>Each function's downcall handle is a {@code static final} constant that takes the target
 * address as its first argument ({@code Linker.downcallHandle(FunctionDescriptor)}), made lazily in
 * its own holder class (jextract's idiom); each instance holds the addresses of its runtime's
 * functions in final fields. A call costs one field load more than a handle bound to one address,
 * and the JIT still sees a constant handle.
 *
 * <p>{@code PyObject*} travels as a {@code long} address (same ABI as a pointer on 64-bit Linux),
 * which keeps the hot paths free of segment allocation; so do the buffers and out-parameters of the
 * calls a request makes (per-thread scratch memory, {@code dev.apx.python.Scratch}): their addresses
 * travel as {@code long} too. Other buffers and C strings are {@link MemorySegment}s. Functions returning a new reference are documented as such by CPython;
 * ownership is managed one layer up, in {@code dev.apx.python}.
 *
 * <p>Thread rule: every function here except {@code Py_DecodeLocale}, {@code PyGILState_*} and
 * {@code PyEval_RestoreThread} must be called by a thread that holds the GIL.
 *
 * <p>Generated by tools/gen_capi.py from a one-line-per-function table; edit the table, not this
 * file, when one is added (see docs/python-layer.md).
 */
@SuppressWarnings("unused")
public final class CApi {
""" + '\n'.join(fields) + """

    /** Looks up every function of the table in {@code library}; fails on the first one missing. */
    public CApi(LibPython library) {
""" + '\n'.join(ctor) + """
    }
""" + '\n'.join(methods) + """
}""")
