package dev.apx;

import dev.apx.python.PyRef;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Python function found once by {@link PythonRuntime#function} ({@code "package.module:function"}),
 * to call from Java as often as needed: a plain {@code def}, an {@code async def}, or any callable.
 *
 * <p>Where calls run:
 * <ul>
 *   <li>{@link #call}: never on the caller's thread, and the caller never takes or waits for the
 *       GIL. An {@code async def} runs as an asyncio task of the runtime's own event loop (one
 *       loop thread per runtime, started with its first function). A plain function runs on that
 *       loop thread too, between the tasks' steps, in the order the calls were made: a slow one
 *       holds up every other call of the runtime, so give blocking or long work
 *       {@link #inThreads()}.</li>
 *   <li>{@link #invoke}: a plain function runs right on the calling platform thread, which takes
 *       the GIL for the call (and waits for it while other Python code holds it); the cheapest way
 *       to call a quick function. A coroutine function, or a call from a virtual thread, goes
 *       through the loop as {@link #call} does, and {@code invoke} waits for it.</li>
 * </ul>
 * Each call runs in a new, empty {@code contextvars.Context}.
 *
 * <p>Values (converted when the call runs, so leave mutable arguments alone until it completes):
 * <pre>
 * Java argument                        Python          Java result
 * null                                 None            null
 * Boolean                              bool            Boolean
 * Long, Integer, Short, Byte           int             Long (BigInteger beyond 64 bits)
 * BigInteger                           int             Long or BigInteger
 * Double, Float                        float           Double
 * String (any CharSequence)            str             String
 * byte[]                               bytes           byte[]
 * Object[]                             tuple           List
 * List (any Collection)                list            List
 * Map                                  dict            Map (LinkedHashMap, in the dict's order)
 * PythonObject                         the object      PythonObject (anything else)
 * </pre>
 * Subclasses of the builtin types convert as their base. Containers convert recursively. Another
 * Java type fails the call at once with {@link IllegalArgumentException}.
 *
 * <p>A Python exception fails the future with a {@link PythonCallException} (type, message,
 * traceback). Cancelling the future, its {@code orTimeout} expiring, {@code get(timeout)} running
 * out or the caller completing it cancels the call (see {@link PythonFuture}): a coroutine's task
 * gets {@code CancelledError} at its next {@code await}; a plain function not yet started never
 * runs, and one already running runs to its end (Python cannot interrupt it), its result given
 * back unread.
 */
public final class PythonFunction {
    private final FunctionCalls calls;
    private final String spec;
    private final PyRef function;
    private final boolean async;
    private final String label;

    PythonFunction(FunctionCalls calls, String spec, PyRef function, boolean async) {
        this.calls = calls;
        this.spec = spec;
        this.function = function;
        this.async = async;
        this.label = "call " + spec;
    }

    /**
     * Calls the function with positional arguments, without waiting.
     *
     * @param args the arguments, converted as the table above says
     * @return the result to come, converted as the table above says
     * @throws IllegalArgumentException an argument has a type that does not convert
     * @throws IllegalStateException    an argument is a closed {@link PythonObject}
     */
    public PythonFuture<Object> call(Object... args) {
        Object[] converted = JavaValues.arguments(Objects.requireNonNull(args, "args"));
        return async ? calls.callAsync(this, converted, null) : calls.callSync(this, converted, null);
    }

    /**
     * Calls the function with positional and keyword arguments, without waiting.
     *
     * @param args   the positional arguments
     * @param kwargs the keyword arguments, by name
     * @return the result to come
     * @throws IllegalArgumentException an argument has a type that does not convert
     * @throws IllegalStateException    an argument is a closed {@link PythonObject}
     */
    public PythonFuture<Object> callWithKeywords(List<?> args, Map<String, ?> kwargs) {
        Object[] converted = JavaValues.arguments(args.toArray());
        Map<String, Object> keywords = JavaValues.keywords(kwargs);
        return async ? calls.callAsync(this, converted, keywords) : calls.callSync(this, converted, keywords);
    }

    /**
     * Calls the function and waits for its result: a plain function on this thread, holding the
     * GIL for the call; a coroutine function (or any call from a virtual thread) as {@link #call}.
     *
     * @param args the arguments, converted as the table above says
     * @return the result, converted as the table above says
     * @throws PythonCallException      the function raised
     * @throws IllegalArgumentException an argument has a type that does not convert
     * @throws IllegalStateException    an argument is a closed {@link PythonObject}, or a coroutine
     *                                  function is invoked from Java code that Python called (it would
     *                                  wait for the GIL its own thread holds)
     */
    public Object invoke(Object... args) {
        return calls.invoke(this, JavaValues.arguments(Objects.requireNonNull(args, "args")), null);
    }

    /**
     * This function run by {@code asyncio.to_thread}: each call waits, as a task of the runtime's
     * loop, for one of asyncio's worker threads to run it, so blocking I/O or long work does not
     * hold up other calls. Cancelling such a call cancels the waiting task; the thread finishes the
     * function anyway (as {@code asyncio.to_thread} does).
     *
     * @return a function whose calls run in asyncio's default thread pool
     * @throws IllegalStateException this function is a coroutine function already
     */
    public PythonFunction inThreads() {
        if (async) {
            throw new IllegalStateException("apx: " + spec + " is a coroutine function: it runs on the loop, not in threads");
        }
        return PlatformThreads.call("apx-function " + spec, () -> calls.inThreads(this));
    }

    /**
     * Whether calling the function gives a coroutine ({@code async def}, or an object whose
     * {@code __call__} is one), which runs as an asyncio task.
     *
     * @return true for a coroutine function
     */
    public boolean isAsync() {
        return async;
    }

    /**
     * The name the function was found by.
     *
     * @return {@code package.module:function}
     */
    public String spec() {
        return spec;
    }

    PyRef ref() {
        return function;
    }

    /** What the slow-step warning names a call by. */
    String label() {
        return label;
    }

    @Override
    public String toString() {
        return "PythonFunction[" + spec + (async ? ", async]" : "]");
    }
}
