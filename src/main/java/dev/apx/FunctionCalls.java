package dev.apx;

import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.Invocation;
import dev.apx.bridge.Request;
import dev.apx.bridge.RequestListener;
import dev.apx.bridge.StartMode;
import dev.apx.python.Gil;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * The machinery behind {@link PythonFunction}s of one runtime: an asyncio loop of its own (a
 * {@link Bridge} in LOOP start mode, started with the first function), on which coroutine functions
 * run as tasks and plain functions run between the tasks' steps, so that a caller never takes or
 * waits for the GIL; and the direct path of {@link PythonFunction#invoke}.
 */
final class FunctionCalls {
    private final Interpreter interpreter;
    private volatile Bridge bridge;
    private PyRef resolve;
    private PyRef inThreads;
    private PyRef typeName;
    private PyRef coroutineType;

    FunctionCalls(Interpreter interpreter) {
        this.interpreter = interpreter;
    }

    /** Finds {@code spec}, starting the loop first if this is the first function. Blocks; platform thread. */
    synchronized PythonFunction function(String spec, Path directory) {
        if (bridge == null) {
            start();
        }
        String dir = directory == null ? null : directory.toAbsolutePath().normalize().toString();
        return interpreter.call(gil -> {
            try (PyRef resolved = resolve.call(gil, spec, dir);
                 PyRef function = resolved.callMethod(gil, "__getitem__", 0);
                 PyRef async = resolved.callMethod(gil, "__getitem__", 1)) {
                return new PythonFunction(this, spec, function.newRef(gil), async.isTrue(gil));
            } catch (PythonException e) {
                String traceback = e.pythonTraceback();
                e.exception().close();
                throw new ApxException("cannot find Python function '" + spec + "': " + e.getMessage() + "\n" + traceback, e);
            }
        });
    }

    /** {@code function} run by {@code asyncio.to_thread}, as a coroutine function. Blocks; platform thread. */
    PythonFunction inThreads(PythonFunction function) {
        return interpreter.call(gil -> new PythonFunction(this, function.spec(), inThreads.call(gil, function.ref()), true));
    }

    private void start() {
        Bridge started = Bridge.start(interpreter, BridgeConfig.defaults().withStartMode(StartMode.LOOP));
        interpreter.run(gil -> {
            try (PyRef calls = gil.importModule("_apx._calls"); PyRef types = gil.importModule("types")) {
                resolve = calls.getAttr(gil, "resolve");
                inThreads = calls.getAttr(gil, "in_threads");
                typeName = calls.getAttr(gil, "type_name");
                coroutineType = types.getAttr(gil, "CoroutineType");
            }
        });
        bridge = started;
    }

    // --- calls through the loop

    /** A plain function's call, run on the loop thread; a coroutine it returns runs as a task. */
    PythonFuture<Object> callSync(PythonFunction function, Object[] args, Map<String, Object> kwargs) {
        PythonFuture<Object> future = new PythonFuture<>();
        bridge.runOnLoop(gil -> {
            if (future.isDone()) {
                return; // cancelled before its turn: it never runs
            }
            Object result;
            try {
                result = function.ref().callInNewContext(gil, args, kwargs);
            } catch (PythonException e) {
                future.completeExceptionally(failure(e));
                return;
            } catch (RuntimeException e) {
                future.completeExceptionally(e);
                return;
            }
            if (result instanceof PyRef ref && ref.hasExactType(gil, coroutineType)) {
                startTask(future, new TaskCall(future), (g, request) -> ref, function.label()); // the task's begin owns it
            } else {
                deliver(gil, result, future);
            }
        });
        return future;
    }

    /** A coroutine function's call: its coroutine runs as an asyncio task of the loop, begun on the loop thread. */
    PythonFuture<Object> callAsync(PythonFunction function, Object[] args, Map<String, Object> kwargs) {
        PythonFuture<Object> future = new PythonFuture<>();
        TaskCall call = new TaskCall(future);
        startTask(future, call, (gil, request) -> call.invoke(gil, function, args, kwargs), function.label());
        return future;
    }

    private void startTask(PythonFuture<Object> future, TaskCall call, Invocation invocation, String label) {
        future.onGivingUp(call::cancel); // cancel(), orTimeout, get(timeout), the caller's complete(...): the task gets CancelledError
        call.started(bridge.start(invocation, call, label, true));
    }

    // --- the direct path

    /**
     * {@link PythonFunction#invoke}: a plain function on the calling platform thread, holding the
     * GIL; everything else (a coroutine function, a virtual caller) through the loop, waited for.
     */
    Object invoke(PythonFunction function, Object[] args, Map<String, Object> kwargs) {
        Thread current = Thread.currentThread();
        // Java code that Python called (on a loop thread, or any thread inside Python) holds the GIL:
        // waiting there for the loop, which needs the GIL, would never end
        boolean inPython = !current.isVirtual() && interpreter.holdsGil();
        if (function.isAsync() || current.isVirtual()) {
            if (inPython) {
                throw new IllegalStateException("apx: invoke() of a coroutine function from inside Python would wait for the GIL it holds; use call()");
            }
            return join(function.isAsync() ? callAsync(function, args, kwargs) : callSync(function, args, kwargs));
        }
        Object[] task = new Object[1];
        Object value = interpreter.call(gil -> {
            Object result;
            try {
                result = function.ref().callInNewContext(gil, args, kwargs);
            } catch (PythonException e) {
                throw failure(e);
            }
            if (result instanceof PyRef ref && ref.hasExactType(gil, coroutineType)) {
                if (inPython) {
                    ref.close();
                    throw new IllegalStateException("apx: " + function.spec() + " returned a coroutine, which invoke() from inside Python cannot wait for; use call()");
                }
                PythonFuture<Object> future = new PythonFuture<>();
                startTask(future, new TaskCall(future), (g, request) -> ref, function.label());
                task[0] = future;
                return null;
            }
            return JavaValues.fromPython(gil, result, this);
        });
        return task[0] != null ? join((PythonFuture<?>) task[0]) : value;
    }

    private static Object join(PythonFuture<?> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    // --- shared

    private static PyRef callHere(Gil gil, PythonFunction function, Object[] args, Map<String, Object> kwargs) {
        return kwargs == null ? function.ref().call(gil, args) : function.ref().callWithKeywords(gil, Arrays.asList(args), kwargs);
    }

    /** Completes {@code future} with {@code result} (as the python layer converted it) as the API gives it. */
    private void deliver(Gil gil, Object result, PythonFuture<Object> future) {
        Object value = JavaValues.fromPython(gil, result, this);
        if (!future.completeWithResult(value)) {
            JavaValues.release(value); // cancelled meanwhile: nobody will close its handles
        }
    }

    /** As {@link #deliver(Gil, Object, PythonFuture)} for a task's result, or how its conversion failed. */
    private void deliverTaskResult(Gil gil, PyRef result, PythonFuture<Object> future) {
        Object converted;
        try {
            converted = result.toJava(gil);
        } catch (PythonException e) {
            future.completeExceptionally(failure(e));
            return;
        }
        deliver(gil, converted, future);
    }

    /** What a caller sees of a Python exception; the exception object (and its traceback's frames) is given back now. */
    private static PythonCallException failure(PythonException e) {
        PythonCallException failure = new PythonCallException(e.pythonType(), e.pythonMessage(), e.pythonTraceback());
        if (e.exception() != null) {
            e.exception().close();
        }
        return failure;
    }

    /** A handle's type name. With the GIL. */
    String typeName(Gil gil, PyRef object) {
        try (PyRef name = typeName.call(gil, object)) {
            return name.str(gil);
        }
    }

    /** Gives {@code ref} back on the loop thread (which wakes for it), or here if the loop has stopped. */
    void release(PyRef ref) {
        try {
            bridge.runOnLoop(gil -> ref.close());
        } catch (IllegalStateException stopped) {
            ref.close();
        }
    }

    /** One coroutine call's task: its outcome to the future, the future's cancellation to the task. */
    private final class TaskCall implements RequestListener {
        private final PythonFuture<Object> future;
        private Request request;
        private boolean cancelWanted;
        private RuntimeException argumentError;

        TaskCall(PythonFuture<Object> future) {
            this.future = future;
        }

        /**
         * Makes the coroutine, in the task's new context (the bridge entered it). A Java failure (a
         * handle closed meanwhile) fails the call through the task's own path.
         */
        PyRef invoke(Gil gil, PythonFunction function, Object[] args, Map<String, Object> kwargs) {
            try {
                return callHere(gil, function, args, kwargs);
            } catch (PythonException e) {
                throw e;
            } catch (RuntimeException e) {
                argumentError = e;
                return gil.none(); // not awaitable: the request fails at once, and completed() reports argumentError
            }
        }

        synchronized void started(Request started) {
            request = started;
            if (cancelWanted) {
                bridge.cancel(started);
            }
        }

        synchronized void cancel() {
            if (request == null) {
                cancelWanted = true;
            } else {
                bridge.cancel(request);
            }
        }

        @Override
        public void completed(Gil gil, Request finished, PyRef result, PythonException error) {
            if (argumentError != null) {
                future.completeExceptionally(argumentError);
            } else if (error != null) {
                if (!future.isDone()) {
                    future.completeExceptionally(failure(error));
                }
            } else {
                deliverTaskResult(gil, result, future);
            }
        }
    }
}
