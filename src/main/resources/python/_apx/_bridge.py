"""The asyncio side of apx's bridge (docs/bridge.md): the event loop, the selector that hands
the step lock back while the loop waits, and the start of a request's task."""
import asyncio
import gc
import selectors
import sys

_PY312 = sys.version_info >= (3, 12)


def new_loop(kind, release_step=None, acquire_step=None):
    """A new event loop of `kind` ("asyncio", "uvloop" or "auto") and the kind chosen.

    With release_step/acquire_step (asyncio only), the loop's selector gives up the bridge's step
    lock while it waits in select() and takes it back before any callback runs.
    """
    if kind in ("uvloop", "auto"):
        try:
            import uvloop
        except ImportError:
            if kind == "uvloop":
                raise
        else:
            return uvloop.new_event_loop(), "uvloop"
    selector = selectors.DefaultSelector()
    if release_step is not None:
        selector = SteppingSelector(selector, release_step, acquire_step)
    return asyncio.SelectorEventLoop(selector), "asyncio"


_young_generation_sized = False


def size_young_generation(threshold):
    """Generation 0's threshold of the cyclic collector (generations 1 and 2 keep theirs).

    apx's loop begins the requests the I/O threads queued in one go; their objects are live, but
    CPython counts them as new since its last collection (docs/bridge.md, the request waves).
    Once per runtime, at the first app's load: what an app sets at its import then outlives the
    next app's load into the same runtime (the Java API hosts several)."""
    global _young_generation_sized
    if _young_generation_sized:
        return
    _young_generation_sized = True
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(threshold, older, oldest)


def run_until_stopped(loop, stopped):
    """Runs `loop` until the future `stopped` is done (stop_loop), under a root task.

    The loop runs the way asyncio.run runs it: one task started by run_until_complete for the
    loop's life. anyio's find_root_task looks for exactly that task to own its worker threads;
    under a bare run_forever it fell back to each request's task, so every anyio.to_thread call
    (Starlette's sync endpoints, FileResponse) started a thread and ended it with the request.
    """
    loop.run_until_complete(_until(stopped))


async def _until(stopped):
    # An app that cancels every task at its own shutdown (a common recipe) must not stop the loop.
    while not stopped.done():
        try:
            await asyncio.shield(stopped)
        except asyncio.CancelledError:
            asyncio.current_task().uncancel()


def heartbeat(loop, interval, beat):
    """Calls beat() every `interval` seconds on the loop, for as long as it runs (apx's slow-step
    watchdog on uvloop, which has no selector to wrap)."""
    def tick():
        beat()
        loop.call_later(interval, tick)

    loop.call_soon(tick)


def stop_loop(stopped):
    if not stopped.done():
        stopped.set_result(None)


class SteppingSelector(selectors.BaseSelector):
    """A selector that releases the step lock for exactly the time the loop waits in select()."""

    def __init__(self, selector, release_step, acquire_step):
        self._selector = selector
        self._release_step = release_step
        self._acquire_step = acquire_step

    def select(self, timeout=None):
        self._release_step(timeout)
        try:
            return self._selector.select(timeout)
        finally:
            self._acquire_step()

    def register(self, fileobj, events, data=None):
        return self._selector.register(fileobj, events, data)

    def unregister(self, fileobj):
        return self._selector.unregister(fileobj)

    def modify(self, fileobj, events, data=None):
        return self._selector.modify(fileobj, events, data)

    def close(self):
        self._selector.close()

    def get_key(self, fileobj):
        return self._selector.get_key(fileobj)

    def get_map(self):
        return self._selector.get_map()


_Task = asyncio.Task  # asyncio's C task (_asyncio.Task) where the accelerator exists, as under Uvicorn


def start_task(coro, loop, context, on_done):
    """The request's task: asyncio's own, over the app's coroutine, in the request's context.

    Its first step runs here, on the calling thread (a server thread holding the step lock, or the
    loop thread in one of apx's callbacks), as `eager_start` runs it. Every later step is asyncio's,
    on the loop thread. `on_done(task)` is added only when the task is still pending: a request
    that ended in its first step queues nothing on the loop.
    """
    if _PY312:
        task = _Task(coro, loop=loop, context=context, eager_start=True)
    else:
        task = _task_stepped_now(coro, loop, context)
    if not task.done():
        task.add_done_callback(on_done, context=context)
    return task


def _task_stepped_now(coro, loop, context):
    """Python 3.11's eager start: Task.__init__ queues its first step with loop.call_soon; an
    instance attribute shadowing that method for the constructor's call hands the step over to be
    run here instead (asyncio's and uvloop's loops alike; uvloop's queue cannot be reached)."""
    first = []

    def call_soon(callback, *args, context=None):
        # the task's step wrapper (its __self__ is the task); any other call (another thread's
        # call_soon during the constructor, if an app makes one) goes to the loop as usual
        if not first and not args and isinstance(getattr(callback, "__self__", None), _Task):
            first.append(callback)
            return None  # Task.__init__ ignores the handle
        return type(loop).call_soon(loop, callback, *args, context=context)

    loop.call_soon = call_soon
    try:
        task = _Task(coro, loop=loop, context=context)
    finally:
        del loop.call_soon
    context.run(first[0])
    return task


def as_coroutine(awaitable):
    """A coroutine for an app's return value (a coroutine, or any awaitable), for its task."""
    if asyncio.iscoroutine(awaitable):
        return awaitable
    if hasattr(awaitable, "__await__"):
        return _awaiting(awaitable)
    raise TypeError(f"an ASGI app must return an awaitable, got {type(awaitable).__name__}")


async def _awaiting(awaitable):
    return await awaitable


class LoopErrors:
    """The loop's exception handler: counts what reaches it and passes it to the default one."""

    def __init__(self, loop, on_error):
        self._on_error = on_error
        loop.set_exception_handler(self)

    def __call__(self, loop, context):
        message = context.get("message", "")
        exception = context.get("exception")
        self._on_error(message if exception is None else f"{message}: {type(exception).__name__}: {exception}")
        loop.default_exception_handler(context)
