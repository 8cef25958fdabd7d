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

/**
 * The one libpython of this process, opened with {@code dlopen(RTLD_NOW | RTLD_GLOBAL)}.
 *
 * <p>RTLD_GLOBAL is not optional: extension modules ({@code _socket}, {@code _asyncio}...) are
 * linked against libpython's symbols without naming the library, so they resolve them from the
 * global namespace; loaded any other way (e.g. {@link SymbolLookup#libraryLookup}) they fail
 * with {@code undefined symbol: PyByteArray_Type}.
 *
 * <p>A process holds at most one libpython: CPython keeps runtime state in globals of the
 * library, so a second version could not share the process. {@link #load} is idempotent for the
 * same path and refuses a different one.
 */
public final class LibPython {
    private static final int RTLD_NOW = 0x2;
    private static final int RTLD_GLOBAL = 0x100;

    private static volatile LibPython loaded;

    private final Path path;
    private final MemorySegment handle;

    private LibPython(Path path, MemorySegment handle) {
        this.path = path;
        this.handle = handle;
    }

    /** Opens the library at {@code path}; throws {@link LibraryLoadException} with dlerror's text. */
    public static synchronized LibPython load(Path path) {
        LibPython current = loaded;
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
        LibPython lib = new LibPython(path, handle);
        MemorySegment probe = lib.find("Py_InitializeEx").orElse(MemorySegment.NULL);
        if (probe.equals(MemorySegment.NULL)) {
            throw new LibraryLoadException(path + " loaded but is not libpython (no Py_InitializeEx)");
        }
        loaded = lib;
        return lib;
    }

    /** The loaded library; fails when {@link #load} has not run. */
    static LibPython current() {
        LibPython lib = loaded;
        if (lib == null) {
            throw new IllegalStateException("libpython is not loaded: start an Interpreter first");
        }
        return lib;
    }

    public Path path() {
        return path;
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

    /** dlopen/dlsym/dlerror from libc (glibc >= 2.34 exports them from libc itself). */
    private static final class Dl {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final SymbolLookup LIBC = LINKER.defaultLookup();
        static final MethodHandle DLOPEN = bind("dlopen", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        static final MethodHandle DLSYM = bind("dlsym", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        static final MethodHandle DLERROR = bind("dlerror", FunctionDescriptor.of(ADDRESS));

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
