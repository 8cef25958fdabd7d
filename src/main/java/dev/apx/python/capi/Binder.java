package dev.apx.python.capi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/** Makes the downcall handles of {@link CApi}: each takes the function's address as its first argument. */
final class Binder {
    private static final Linker LINKER = Linker.nativeLinker();

    private Binder() {
    }

    /** A handle for any function of this shape, in any runtime: {@code (MemorySegment target, args...)}. */
    static MethodHandle handle(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor);
    }

    /** invokeExact declares Throwable; downcalls only throw unchecked ones or errors. */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("C-API call failed", t);
    }
}
