package dev.apx.python;

import dev.apx.python.capi.CApi;
import dev.apx.python.capi.LibPython;
import dev.apx.python.capi.LibraryLoadException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * An embedded CPython interpreter. It is initialised once and then releases the GIL, so any
 * platform thread can enter it with {@link #call}; the token handed to the body proves the GIL is
 * held (see {@link Gil}).
 *
 * <p>Threads: each platform thread gets its own CPython thread state on first entry
 * ({@code PyGILState_Ensure}) and keeps it; later entries are {@code PyEval_RestoreThread} /
 * {@code PyEval_SaveThread} (about 100 ns, against ~600 ns for Ensure/Release each time).
 * Entries nest: a thread already inside reuses its token. Virtual threads are refused, because
 * CPython's thread state is per OS thread and a virtual thread may change carrier between calls.
 *
 * <p>Only the main interpreter exists today, so {@link #start} returns the one of this process;
 * the type is an object, not a global, so that per-core sub-interpreters (PEP 684) can follow.
 */
public final class Interpreter {
    private static final int NAME_CACHE_LIMIT = 4096;
    private static Interpreter main;

    private final PythonInstall install;
    private final ThreadLocal<ThreadState> threads = ThreadLocal.withInitial(ThreadState::new);
    private final Queue<Long> pendingDecrefs = new ConcurrentLinkedQueue<>();
    private final Map<String, Long> names = new ConcurrentHashMap<>();
    private final JavaCallables callables = new JavaCallables(this);
    private volatile ErrorHelpers errorHelpers;
    private volatile GilWaitObserver gilWaits; // null: GIL entries are not timed

    private Interpreter(PythonInstall install) {
        this.install = install;
    }

    /**
     * Loads {@code install}'s libpython, initialises CPython with that interpreter's prefix and
     * {@code sys.path}, loads apx's Python helpers and releases the GIL. Once per process: a
     * second call with the same install returns the same interpreter.
     */
    public static synchronized Interpreter start(PythonInstall install) {
        if (main != null) {
            if (!main.install.library().equals(install.library())) {
                throw new PythonSetupException("this process already embeds " + main.install.library()
                        + "; cannot also start " + install.library());
            }
            return main;
        }
        if (Thread.currentThread().isVirtual()) {
            throw new IllegalStateException("apx: start the interpreter from a platform thread");
        }
        try {
            LibPython.load(install.library());
        } catch (LibraryLoadException e) {
            throw new PythonSetupException("cannot load libpython for Python " + install.version() + ": " + e.getMessage());
        }
        Interpreter interpreter = new Interpreter(install);
        try {
            interpreter.initialize();
        } catch (LibraryLoadException e) {
            throw new PythonSetupException("Python " + install.version() + " lacks what apx needs: " + e.getMessage());
        } catch (ExceptionInInitializerError e) {
            throw new PythonSetupException("Python " + install.version() + " lacks what apx needs: " + e.getCause());
        } catch (PythonException e) {
            throw new PythonSetupException("Python " + install.version() + " failed to start apx's helpers: " + e.getMessage());
        }
        main = interpreter;
        return main;
    }

    /** The interpreter this process embeds, or null before {@link #start}. */
    public static synchronized Interpreter running() {
        return main;
    }

    private void initialize() {
        // The program name decides prefix and venv detection (pyvenv.cfg next to it), as for
        // `python -c`; without it CPython guesses from the first python3 on PATH.
        MemorySegment programName = CApi.Py_DecodeLocale(Arena.global().allocateFrom(install.executable().toString()), MemorySegment.NULL);
        CApi.Py_SetProgramName(programName);
        CApi.Py_InitializeEx(0); // 0: no Python signal handlers; Java owns SIGINT/SIGTERM
        ThreadState state = threads.get();
        Gil gil = state.adoptInitialThread(this);
        try {
            // apx's helpers (package _apx) are imported with their own path first, so no _apx on the
            // app's sys.path can stand in for them; once imported, _apx._bridge etc. resolve through
            // _apx.__path__. The app's sys.path stays as `python -c` has it, helpers last.
            List<String> helpersFirst = new ArrayList<>(install.sysPath());
            helpersFirst.addFirst(helpersPath()); // the rest: zipimport needs zlib from lib-dynload
            List<String> path = new ArrayList<>(install.sysPath());
            path.add(helpersPath());
            try (PyRef sys = gil.importModule("sys")) {
                sys.setAttr(gil, "path", helpersFirst);
                gil.importModule("_apx").close();
                sys.setAttr(gil, "path", path);
                sys.setAttr(gil, "argv", List.of(""));
            }
            // On the thread that initialised CPython, so that threading.main_thread() is this
            // thread (uvloop, signal and asyncio code ask it), and before any app can import the
            // C module _asyncio ahead of asyncio, which leaves current_task() returning None.
            gil.importModule("threading").close();
            gil.importModule("asyncio").close();
            try (PyRef errors = gil.importModule("_apx._errors")) {
                errorHelpers = new ErrorHelpers(
                        Conversions.getAttr(gil, errors.address(gil), "type_name"),
                        Conversions.getAttr(gil, errors.address(gil), "format_exception"),
                        Conversions.getAttr(gil, errors.address(gil), "JavaError"));
            }
            callables.install();
        } finally {
            state.close(this);
        }
    }

    /** Where apx's own Python package lives: {@code python/} in the jar (zipimport) or in the classes directory. */
    private static String helpersPath() {
        try {
            Path location = Path.of(Interpreter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            String base = location.toString();
            if (Files.isDirectory(location)) {
                return location.resolve("python").toString();
            }
            return base + "/python";
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate apx's Python helpers", e);
        }
    }

    public PythonInstall install() {
        return install;
    }

    /** Runs {@code body} holding the GIL and returns its result. */
    public <T> T call(Function<Gil, T> body) {
        ThreadState state = threads.get();
        if (state.released) {
            throw new IllegalStateException("apx: cannot enter Python inside Gil.allowThreads");
        }
        if (state.depth > 0) {
            state.depth++;
            try {
                return body.apply(state.gil);
            } finally {
                state.depth--;
            }
        }
        Gil gil = state.open(this);
        try {
            return body.apply(gil);
        } finally {
            state.close(this);
        }
    }

    /** Runs {@code body} holding the GIL. */
    public void run(Consumer<Gil> body) {
        call(gil -> {
            body.accept(gil);
            return null;
        });
    }

    /** Times every GIL entry of a Java thread from now on and tells {@code observer} (metrics); null stops it. */
    public void observeGilWaits(GilWaitObserver observer) {
        this.gilWaits = observer;
    }

    /** Takes the GIL back with {@code threadState}, timed when someone observes GIL waits. */
    private void restoreThread(MemorySegment threadState) {
        GilWaitObserver observer = gilWaits;
        if (observer == null) {
            CApi.PyEval_RestoreThread(threadState);
            return;
        }
        long start = System.nanoTime();
        CApi.PyEval_RestoreThread(threadState);
        observer.waited(System.nanoTime() - start);
    }

    /** True when the current thread is inside a GIL section of this interpreter (and has not released it). */
    public boolean holdsGil() {
        ThreadState state = threads.get();
        return state.depth > 0 && !state.released;
    }

    /** Releases the GIL around {@code body} (which must not touch Python), then takes it back. */
    void allowThreads(Gil gil, Runnable body) {
        gil.check();
        ThreadState state = threads.get();
        MemorySegment saved = CApi.PyEval_SaveThread();
        state.released = true;
        gil.suspend();
        try {
            body.run();
        } finally {
            restoreThread(saved);
            state.released = false;
            gil.resume();
        }
    }

    /** Gives back one reference: now under the GIL, else at the next entry by any thread. */
    void decref(long address) {
        if (holdsGil()) {
            CApi.Py_DecRef(address);
        } else {
            pendingDecrefs.add(address);
        }
    }

    /**
     * References queued by threads without the GIL; drained at each outermost entry and at each
     * upcall, because a thread that holds the GIL for its whole life (the asyncio loop thread in
     * LOOP mode) may be the only one that enters Python: drained only at outermost entries, the
     * queue grew by thousands a second under load.
     */
    public int pendingReleases() {
        return pendingDecrefs.size();
    }

    private void drainPendingDecrefs() {
        Long address;
        while ((address = pendingDecrefs.poll()) != null) {
            CApi.Py_DecRef(address);
        }
    }

    /**
     * A borrowed str for an attribute name, kept for the interpreter's life (names are code
     * constants, so the cache stays small); 0 once {@value #NAME_CACHE_LIMIT} names are cached.
     */
    long cachedName(Gil gil, String name) {
        Long cached = names.get(name);
        if (cached != null) {
            return cached;
        }
        if (names.size() >= NAME_CACHE_LIMIT) {
            return 0;
        }
        long created = Conversions.string(gil, name);
        names.put(name, created);
        return created;
    }

    /** _apx._errors' functions, owned for the interpreter's life; null while it starts. */
    ErrorHelpers errorHelpers() {
        return errorHelpers;
    }

    /** New references to _apx._errors.type_name, format_exception and JavaError. */
    record ErrorHelpers(long typeName, long format, long javaError) {
    }

    JavaCallables callables() {
        return callables;
    }

    /**
     * Runs {@code hook} (or nothing, with null) each time a call from Python into Java on the current
     * thread returns, still holding the GIL: for a thread that lives inside Python (the loop thread),
     * the one place to finish Java work its calls left queued.
     */
    public void afterEachUpcall(Runnable hook) {
        threads.get().afterUpcall = hook;
    }

    /** Marks a thread that Python called into Java (an upcall) as holding the GIL. */
    Gil enterFromPython() {
        ThreadState state = threads.get();
        if (state.depth == 0) {
            state.gil = new Gil(this, state);
        }
        state.depth++;
        drainPendingDecrefs();
        return state.gil;
    }

    void exitFromPython() {
        ThreadState state = threads.get();
        Runnable hook = state.afterUpcall;
        if (hook != null) {
            try {
                hook.run();
            } catch (RuntimeException e) {
                dev.apx.log.Log.error("apx: an upcall's return hook failed", e);
            }
        }
        if (--state.depth == 0) {
            state.promoteYoung();
            state.gil.close();
            state.gil = null;
        }
    }

    /** What one platform thread knows about its use of this interpreter. */
    static final class ThreadState {
        private long threadState; // PyThreadState*, 0 until the first entry
        private int depth;
        private boolean released; // inside Gil.allowThreads
        private Runnable afterUpcall;
        private Gil gil;
        private Scratch scratch;
        private final java.util.ArrayList<PyRef> young = new java.util.ArrayList<>();
        private static final int YOUNG_LIMIT = 256;

        void adopt(PyRef ref) {
            young.add(ref);
            if (young.size() >= YOUNG_LIMIT) {
                // a long section (the loop thread's lasts its whole life): hand survivors to the Cleaner now
                promoteYoung();
            }
        }

        void promoteYoung() {
            for (PyRef ref : young) {
                ref.outliveSection();
            }
            young.clear();
        }

        Scratch scratch() {
            if (scratch == null) {
                scratch = new Scratch();
            }
            return scratch;
        }

        /** Takes the GIL for an outermost section. */
        Gil open(Interpreter interpreter) {
            Thread thread = Thread.currentThread();
            if (thread.isVirtual()) {
                throw new IllegalStateException("apx: virtual thread " + thread + " cannot enter Python:"
                        + " CPython's thread state belongs to an OS thread; use a platform thread");
            }
            if (threadState == 0) {
                CApi.PyGILState_Ensure(); // creates this thread's state, kept for the thread's life
            } else {
                interpreter.restoreThread(MemorySegment.ofAddress(threadState));
            }
            depth = 1;
            gil = new Gil(interpreter, this);
            interpreter.drainPendingDecrefs();
            return gil;
        }

        /** The thread that ran Py_InitializeEx already holds the GIL with the main thread state. */
        Gil adoptInitialThread(Interpreter interpreter) {
            depth = 1;
            gil = new Gil(interpreter, this);
            return gil;
        }

        /** Leaves an outermost section: the token dies, the GIL is released. */
        void close(Interpreter interpreter) {
            promoteYoung();
            gil.close();
            gil = null;
            depth = 0;
            threadState = CApi.PyEval_SaveThread().address();
        }
    }
}
