package dev.apx.python;

import dev.apx.python.capi.Globals;

/**
 * The positional arguments of one call into a {@link JavaFunction}: borrowed from Python and valid
 * only during that call. {@link #ref} makes an owned reference to keep one.
 */
public final class Args {
    private final Gil gil;
    private final long array;
    private final int size;

    Args(Gil gil, long array, int size) {
        this.gil = gil;
        this.array = array;
        this.size = size;
    }

    public int size() {
        return size;
    }

    /** The argument converted to Java, as {@link PyRef#toJava} does. */
    public Object get(int index) {
        return Conversions.toJava(gil, borrowed(index));
    }

    /** A new owned reference to the argument. */
    public PyRef ref(int index) {
        return PyRef.fromBorrowed(gil, borrowed(index));
    }

    private long borrowed(int index) {
        gil.check();
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("argument " + index + " of " + size);
        }
        return Globals.readPointer(array + 8L * index);
    }
}
