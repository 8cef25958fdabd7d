package dev.apx;

import dev.apx.python.Gil;
import dev.apx.python.PyRef;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The values of {@link PythonFunction} calls on their way in and out, around the python layer's
 * conversions: arguments are checked (an unsupported type fails the call at once, on the caller's
 * thread) and their {@link PythonObject}s become the references they hold; in results, tuples
 * become lists and objects with no Java counterpart become {@link PythonObject} handles.
 * Containers are copied only when something in them changes.
 */
final class JavaValues {
    private JavaValues() {
    }

    /** The arguments as the python layer converts them; the same array when nothing changes. */
    static Object[] arguments(Object[] args) {
        Object[] out = args;
        for (int i = 0; i < args.length; i++) {
            Object converted = forPython(args[i]);
            if (converted != args[i]) {
                if (out == args) {
                    out = args.clone();
                }
                out[i] = converted;
            }
        }
        return out;
    }

    static Map<String, Object> keywords(Map<String, ?> kwargs) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, ?> entry : kwargs.entrySet()) {
            if (entry.getKey() == null) {
                throw new IllegalArgumentException("apx: a keyword argument's name is null");
            }
            out.put(entry.getKey(), forPython(entry.getValue()));
        }
        return out;
    }

    private static Object forPython(Object value) {
        return switch (value) {
            case null -> null;
            case Boolean b -> b;
            case Long l -> l;
            case Integer i -> i;
            case Short s -> s;
            case Byte b -> b;
            case BigInteger big -> big;
            case Double d -> d;
            case Float f -> f;
            case CharSequence s -> s;
            case byte[] bytes -> bytes;
            case PythonObject object -> object.ref();
            case Object[] items -> arguments(items);
            case Collection<?> items -> collection(items);
            case Map<?, ?> map -> map(map);
            default -> throw new IllegalArgumentException("apx: cannot pass a " + value.getClass().getName()
                    + " to Python (null, Boolean, Long, Integer, Short, Byte, BigInteger, Double, Float, String,"
                    + " byte[], Object[], a Collection, a Map or a PythonObject)");
        };
    }

    private static Object collection(Collection<?> items) {
        List<Object> copy = null;
        int i = 0;
        for (Object item : items) {
            Object converted = forPython(item);
            if (converted != item && copy == null) {
                copy = new ArrayList<>(items.size());
                int j = 0;
                for (Object earlier : items) {
                    if (j++ == i) {
                        break;
                    }
                    copy.add(earlier);
                }
            }
            if (copy != null) {
                copy.add(converted);
            }
            i++;
        }
        return copy == null ? items : copy;
    }

    private static Object map(Map<?, ?> map) {
        boolean changed = false;
        Map<Object, Object> copy = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            Object key = forPython(entry.getKey());
            Object value = forPython(entry.getValue());
            changed |= key != entry.getKey() || value != entry.getValue();
            copy.put(key, value);
        }
        return changed ? copy : map;
    }

    /**
     * A result converted by the python layer ({@link PyRef#toJava}) as the API gives it: tuples as
     * lists, references as {@link PythonObject}s. Loop thread or caller, with the GIL (a handle's
     * type name is asked of Python).
     */
    static Object fromPython(Gil gil, Object value, FunctionCalls calls) {
        return switch (value) {
            case PyRef ref -> new PythonObject(ref, calls.typeName(gil, ref), calls);
            case Object[] items -> {
                List<Object> list = new ArrayList<>(items.length);
                for (Object item : items) {
                    list.add(fromPython(gil, item, calls));
                }
                yield list;
            }
            case List<?> items -> {
                @SuppressWarnings("unchecked")
                List<Object> list = (List<Object>) items; // the python layer's own ArrayList
                for (int i = 0; i < list.size(); i++) {
                    Object item = list.get(i);
                    if (item instanceof PyRef || item instanceof Object[] || item instanceof List || item instanceof Map) {
                        list.set(i, fromPython(gil, item, calls));
                    }
                }
                yield list;
            }
            case Map<?, ?> map -> {
                boolean changed = false;
                Map<Object, Object> copy = new LinkedHashMap<>();
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    Object key = fromPython(gil, entry.getKey(), calls);
                    Object item = fromPython(gil, entry.getValue(), calls);
                    changed |= key != entry.getKey() || item != entry.getValue();
                    copy.put(key, item);
                }
                yield changed ? copy : map;
            }
            case null, default -> value;
        };
    }

    /** Closes every handle in a result nobody will read (its call was cancelled meanwhile). */
    static void release(Object value) {
        switch (value) {
            case PythonObject object -> object.close();
            case Collection<?> items -> items.forEach(JavaValues::release);
            case Map<?, ?> map -> map.forEach((key, item) -> {
                release(key);
                release(item);
            });
            case null, default -> {
            }
        }
    }
}
