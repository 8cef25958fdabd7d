package dev.apx.python;

import dev.apx.python.capi.CApi;
import dev.apx.python.capi.Globals;
import dev.apx.python.capi.LibPython;
import dev.apx.python.capi.LibraryLoadException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * <p>A process has one runtime in the base namespace ({@link #start}) and may have up to 15 more,
 * each a whole CPython with its own GIL, loaded into a glibc link-map namespace of its own
 * ({@link #startIsolated}; see docs/interpreters.md). Each instance carries its runtime's C API,
 * so nothing here is bound to one libpython.
 */
public final class Interpreter {
    private static final int NAME_CACHE_LIMIT = 4096;
    private static Interpreter main;
    private static volatile boolean isolatedStarted;

    private final PythonInstall install;
    private final LibPython library;
    private final CApi capi;
    private final Globals globals;
    private final ThreadLocal<ThreadState> threads = ThreadLocal.withInitial(ThreadState::new);
    private final Queue<Long> pendingDecrefs = new ConcurrentLinkedQueue<>();
    private final Map<String, Long> names = new ConcurrentHashMap<>();
    private final JavaCallables callables = new JavaCallables(this);
    private volatile ErrorHelpers errorHelpers;
    private volatile GilWaitObserver gilWaits; // null: GIL entries are not timed

    private Interpreter(PythonInstall install, LibPython library, CApi capi, Globals globals) {
        this.install = install;
        this.library = library;
        this.capi = capi;
        this.globals = globals;
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
        LibPython library;
        try {
            library = LibPython.load(install.library());
        } catch (LibraryLoadException e) {
            throw new PythonSetupException("cannot load libpython for Python " + install.version() + ": " + e.getMessage());
        }
        main = boot(install, library);
        return main;
    }

    /**
     * A further, separate runtime of {@code install}'s Python, in a glibc link-map namespace of its
     * own: its own GIL, {@code sys.modules}, copy of every extension module and libc. Each call
     * starts a new one (at most 15 per process); {@link #start}'s runtime need not exist.
     */
    public static synchronized Interpreter startIsolated(PythonInstall install) {
        if (Thread.currentThread().isVirtual()) {
            throw new IllegalStateException("apx: start the interpreter from a platform thread");
        }
        LibPython library;
        try {
            library = LibPython.loadIsolated(install.library());
        } catch (LibraryLoadException e) {
            throw new PythonSetupException("cannot start another runtime of Python " + install.version() + ": " + e.getMessage());
        }
        isolatedStarted = true;
        return boot(install, library);
    }

    /** How many more {@link #startIsolated} calls this process has room for (glibc's link-map namespaces left). */
    public static int isolatedRuntimesLeft() {
        return LibPython.isolatedLeft();
    }

    /**
     * True once a runtime in a namespace of its own was started: the JVM's normal exit then runs
     * every namespace's libc exit handlers against state the base libc owns and corrupts the heap,
     * so the process must end with {@code Runtime.halt} once it has drained (docs/interpreters.md).
     */
    public static boolean isolatedRuntimesStarted() {
        return isolatedStarted;
    }

    private static Interpreter boot(PythonInstall install, LibPython library) {
        Interpreter interpreter;
        try {
            CApi capi = new CApi(library);
            library.prepareThread();
            // The program name decides prefix and venv detection (pyvenv.cfg next to it), as for
            // `python -c`; without it CPython guesses from the first python3 on PATH.
            MemorySegment programName = capi.Py_DecodeLocale(Arena.global().allocateFrom(install.executable().toString()), MemorySegment.NULL);
            capi.Py_SetProgramName(programName);
            capi.Py_InitializeEx(0); // 0: no Python signal handlers; Java owns SIGINT/SIGTERM
            interpreter = new Interpreter(install, library, capi, new Globals(library));
            interpreter.initialize();
        } catch (LibraryLoadException e) {
            throw new PythonSetupException("Python " + install.version() + " lacks what apx needs: " + e.getMessage());
        } catch (ExceptionInInitializerError e) {
            throw new PythonSetupException("Python " + install.version() + " lacks what apx needs: " + e.getCause());
        } catch (PythonException e) {
            throw new PythonSetupException("Python " + install.version() + " failed to start apx's helpers: " + e.getMessage());
        }
        return interpreter;
    }

    /** The interpreter this process embeds, or null before {@link #start}. */
    public static synchronized Interpreter running() {
        return main;
    }

    private void initialize() {
        ThreadState state = threads.get();
        Gil gil = state.adoptInitialThread(this);
        try {
            // apx's helpers (package _apx) are imported with their own path first, so no _apx on the
            // app's sys.path can stand in for them; once imported, _apx._bridge etc. resolve through
            // _apx.__path__. The app's sys.path stays as `python -c` has it, helpers last.
            String helpers = HelperFiles.pythonPath();
            List<String> helpersFirst = new ArrayList<>(install.sysPath());
            helpersFirst.addFirst(helpers); // the rest: zipimport needs zlib from lib-dynload
            List<String> path = new ArrayList<>(install.sysPath());
            path.add(helpers);
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
            if (dev.apx.log.Log.output() == dev.apx.log.Log.Output.SLF4J) {
                PythonLogging.install(gil); // before any app is imported: its records go to the host's SLF4J
            }
        } finally {
            state.close(this);
        }
    }

    public PythonInstall install() {
        return install;
    }

    /** 0 for the runtime in the base namespace, 1.. for those {@link #startIsolated} made, in order. */
    public int namespace() {
        return library.namespace();
    }

    CApi capi() {
        return capi;
    }

    Globals globals() {
        return globals;
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
            capi.PyEval_RestoreThread(threadState);
            return;
        }
        long start = System.nanoTime();
        capi.PyEval_RestoreThread(threadState);
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
        MemorySegment saved = capi.PyEval_SaveThread();
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
            capi.Py_DecRef(address);
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
            capi.Py_DecRef(address);
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
                interpreter.library.prepareThread(); // a namespace's libc needs this thread's ctype tables set
                interpreter.capi.PyGILState_Ensure(); // creates this thread's state, kept for the thread's life
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
            threadState = interpreter.capi.PyEval_SaveThread().address();
        }
    }
}
