package dev.apx.python.capi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One loaded copy of libpython: the base namespace's, opened with {@code dlopen(RTLD_NOW |
 * RTLD_GLOBAL)} as a plain embedding does, or a further one in a glibc link-map namespace of its
 * own ({@code dlmopen(LM_ID_NEWLM)}), with its own libc and its own copy of every extension module
 * it loads: a whole separate CPython runtime (see docs/interpreters.md).
 *
 * <p>RTLD_GLOBAL is not optional in the base namespace: extension modules ({@code _socket},
 * {@code _asyncio}...) are linked against libpython's symbols without naming the library, so they
 * resolve them from the global scope; loaded any other way (e.g. {@link SymbolLookup#libraryLookup})
 * they fail with {@code undefined symbol: PyByteArray_Type}. In a new namespace glibc refuses
 * RTLD_GLOBAL ({@code invalid mode}), and needs none: the first object dlmopen loads becomes that
 * namespace's global scope, so its extensions resolve libpython's symbols from their own copy.
 *
 * <p>The base namespace holds at most one libpython: CPython keeps runtime state in globals of the
 * library, so a second version could not share it. {@link #load} is idempotent for the same path
 * and refuses a different one.
 */
public final class LibPython {
    private static final int RTLD_NOW = 0x2;
    private static final int RTLD_GLOBAL = 0x100;
    private static final long LM_ID_NEWLM = -1;
    /** glibc's DL_NNS: the base namespace and 15 more. */
    public static final int MAX_NAMESPACES = 16;

    private static volatile LibPython base;
    private static int isolatedLoaded;
    /** The process's environment before any runtime ran: what each namespace's libc starts with. */
    private static ProcessEnvironment startEnvironment;

    private final Path path;
    private final MemorySegment handle;
    private final int namespace; // 0: the base namespace
    private final MemorySegment ctypeInit; // the namespace's own __ctype_init; NULL in the base

    private LibPython(Path path, MemorySegment handle, int namespace) {
        this.path = path;
        this.handle = handle;
        this.namespace = namespace;
        this.ctypeInit = namespace == 0 ? MemorySegment.NULL : require("__ctype_init");
    }

    /** Opens the library at {@code path} in the base namespace; throws {@link LibraryLoadException} with dlerror's text. */
    public static synchronized LibPython load(Path path) {
        rememberStartEnvironment();
        LibPython current = base;
        if (current != null) {
            if (current.path.equals(path)) {
                return current;
            }
            throw new LibraryLoadException("this process already loaded " + current.path
                    + "; one libpython per process, cannot also load " + path);
        }
        MemorySegment handle;
        try (Arena arena = Arena.ofConfined()) {
            handle = (MemorySegment) Dl.DLOPEN.invokeExact(arena.allocateFrom(path.toString()), RTLD_NOW | RTLD_GLOBAL);
        } catch (Throwable t) {
            throw new LibraryLoadException("dlopen failed for " + path + ": " + t);
        }
        if (handle.equals(MemorySegment.NULL)) {
            throw new LibraryLoadException("cannot load " + path + ": " + Dl.lastError());
        }
        base = checked(new LibPython(path, handle, 0));
        return base;
    }

    /** How many more runtimes in namespaces of their own this process can load (glibc's namespaces left). */
    public static synchronized int isolatedLeft() {
        return MAX_NAMESPACES - 1 - isolatedLoaded;
    }

    /**
     * Opens another copy of the library at {@code path} in a new namespace, with its pthread keys
     * confined to a range of their own ({@link PthreadKeys}), ready for {@code Py_InitializeEx}.
     * Each call is a new, separate runtime.
     */
    public static synchronized LibPython loadIsolated(Path path) {
        rememberStartEnvironment();
        int namespace = isolatedLoaded + 1;
        if (namespace >= MAX_NAMESPACES) {
            throw new LibraryLoadException("glibc allows " + MAX_NAMESPACES + " link-map namespaces, so at most "
                    + (MAX_NAMESPACES - 1) + " runtimes beside the first; runtime " + namespace + " cannot load");
        }
        PthreadKeys.reserveInBase(namespace);
        String malloc = System.getenv("PYTHONMALLOC");
        if (malloc != null && malloc.contains("mimalloc")) {
            throw new LibraryLoadException("PYTHONMALLOC=" + malloc + ": mimalloc sets a pthread key of its own libc on every thread,"
                    + " over the JVM's; unset it to run more than one runtime");
        }
        MemorySegment handle;
        MemorySegment[] firstBlock = PthreadKeys.saveFirstBlock();
        try (Arena arena = Arena.ofConfined()) {
            handle = (MemorySegment) Dl.DLMOPEN.invokeExact(LM_ID_NEWLM, arena.allocateFrom(path.toString()), RTLD_NOW);
        } catch (Throwable t) {
            throw new LibraryLoadException("dlmopen failed for " + path + ": " + t);
        } finally {
            PthreadKeys.restoreFirstBlock(firstBlock); // what the library's constructors set on this thread over the JVM's keys
        }
        if (handle.equals(MemorySegment.NULL)) {
            String error = Dl.lastError();
            if (error.contains("static TLS")) {
                throw new LibraryLoadException("runtime " + namespace + " does not fit in glibc's static TLS (" + error
                        + "); start the JVM with GLIBC_TUNABLES=glibc.rtld.optional_static_tls=1024 in its environment"
                        + " (bin/apx and the pip launcher set it)");
            }
            if (error.contains("no more namespaces")) {
                throw new LibraryLoadException("glibc has no link-map namespace left for runtime " + namespace + ": " + error);
            }
            throw new LibraryLoadException("cannot load " + path + " in a namespace of its own (runtime " + namespace + "): " + error);
        }
        LibPython lib = checked(new LibPython(path, handle, namespace));
        // dlmopen gave the new libc the base one's environment as it is now, with whatever runtime 0's app put
        // there; a runtime starts from the process's own, as a Uvicorn worker does (docs/interpreters.md, section 7)
        startEnvironment.installIn(lib.require("environ"));
        PthreadKeys.confineNamespace(lib, namespace);
        isolatedLoaded = namespace;
        return lib;
    }

    private static void rememberStartEnvironment() {
        if (startEnvironment == null) {
            startEnvironment = ProcessEnvironment.of(Dl.LIBC.find("environ")
                    .orElseThrow(() -> new LibraryLoadException("libc has no environ")));
        }
    }

    private static LibPython checked(LibPython lib) {
        if (lib.find("Py_InitializeEx").isEmpty()) {
            throw new LibraryLoadException(lib.path + " loaded but is not libpython (no Py_InitializeEx)");
        }
        return lib;
    }

    public Path path() {
        return path;
    }

    /** 0 for the base namespace, 1.. for the namespaces {@link #loadIsolated} made. */
    public int namespace() {
        return namespace;
    }

    /**
     * Makes the current thread ready to run code of this copy: the namespace's libc has its own
     * thread-local ctype tables, which only threads its own pthread_create made have set (CPython's
     * tokenizer segfaults without them), and the base libc allocates the per-thread blocks of the
     * namespace's pthread keys, so that the base libc, which frees them when the thread exits,
     * frees memory of its own. Once per thread, before its first call into this copy.
     */
    public void prepareThread() {
        if (namespace == 0) {
            return;
        }
        try {
            Dl.CALL_VOID.invokeExact(ctypeInit);
        } catch (Throwable t) {
            throw Binder.rethrow(t);
        }
        PthreadKeys.prepareThread(namespace);
    }

    Optional<MemorySegment> find(String symbol) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment address = (MemorySegment) Dl.DLSYM.invokeExact(handle, arena.allocateFrom(symbol));
            return address.equals(MemorySegment.NULL) ? Optional.empty() : Optional.of(address);
        } catch (Throwable t) {
            throw new IllegalStateException("dlsym(" + symbol + ") failed", t);
        }
    }

    MemorySegment require(String symbol) {
        return find(symbol).orElseThrow(() -> new LibraryLoadException(
                "symbol " + symbol + " not found in " + path + " (unsupported CPython version?)"));
    }

    /** dlopen/dlmopen/dlsym/dlerror from libc (glibc >= 2.34 exports them from libc itself). */
    private static final class Dl {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final SymbolLookup LIBC = LINKER.defaultLookup();
        static final MethodHandle DLOPEN = bind("dlopen", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        static final MethodHandle DLMOPEN = bind("dlmopen", FunctionDescriptor.of(ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT));
        static final MethodHandle DLSYM = bind("dlsym", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        static final MethodHandle DLERROR = bind("dlerror", FunctionDescriptor.of(ADDRESS));
        static final MethodHandle CALL_VOID = LINKER.downcallHandle(FunctionDescriptor.ofVoid());

        private static MethodHandle bind(String name, FunctionDescriptor fd) {
            MemorySegment address = LIBC.find(name).orElseGet(() -> SymbolLookup.libraryLookup("libdl.so.2", Arena.global())
                    .find(name).orElseThrow(() -> new LibraryLoadException("libc has no " + name)));
            return LINKER.downcallHandle(address, fd);
        }

        static String lastError() {
            try {
                MemorySegment message = (MemorySegment) DLERROR.invokeExact();
                return message.equals(MemorySegment.NULL) ? "unknown dlopen error"
                        : message.reinterpret(4096).getString(0);
            } catch (Throwable t) {
                return "unknown dlopen error (" + t + ")";
            }
        }
    }
}
