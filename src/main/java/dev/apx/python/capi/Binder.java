package dev.apx.python.capi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/** Binds C-API symbols of the loaded libpython to method handles. */
final class Binder {
    private static final Linker LINKER = Linker.nativeLinker();

    private Binder() {
    }

    static MethodHandle function(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LibPython.current().require(name), descriptor);
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
