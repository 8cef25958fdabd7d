"""The asyncio side of apx's bridge (docs/bridge.md): the event loop, the selector that hands
the step lock back while the loop waits, and the task that stands for a request driven by Java."""
import asyncio
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
        self._release_step()
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


async def _sentinel():
    pass


class RequestTask(asyncio.Task):
    """`asyncio.current_task()` while apx drives a request's coroutine.

    A real Task (so `_enter_task`, sniffio and anyio accept it) whose own coroutine is an
    instantly finished sentinel that never reaches `loop._ready`. The request's state lives in the
    `_apx_*` attributes, kept by the Java driver; cancel/uncancel/cancelling/done and the
    `_fut_waiter`/`_must_cancel` attributes anyio reads behave as they would on the Task that
    drives the request, with asyncio's edge-triggered cancellation.
    """

    # Defaults on the class: each request sets only its id (fewer stores per request).
    _apx_waiter = None
    _apx_must_cancel = False
    _apx_cancel_message = None
    _apx_cancel_requests = 0
    _apx_finished = False

    def __init__(self, loop, request_id):
        ready = getattr(loop, "_ready", None)  # uvloop has none
        if _PY312:
            # Runs the sentinel to completion inline (via _swap_current_task, no _enter_task).
            super().__init__(_sentinel(), loop=loop, eager_start=True)
        else:
            before = len(ready) if ready is not None else 0
            super().__init__(_sentinel(), loop=loop)
            if ready is not None and len(ready) > before:
                ready.pop()  # remove the sentinel's __step physically; cancel() would leave it queued
                self.get_coro().close()
                asyncio.Future.set_result(self, None)
            # uvloop: the sentinel's __step stays in libuv's queue and finishes at once, on the loop thread.
        self._apx_id = request_id

    def cancel(self, msg=None):
        if self._apx_finished:
            return False
        self._apx_cancel_requests += 1
        waiter = self._apx_waiter
        if waiter is not None and waiter.cancel(msg=msg):
            return True  # the driver resumes with the waiter's CancelledError
        self._apx_must_cancel = True
        self._apx_cancel_message = msg
        return True

    def cancelling(self):
        return self._apx_cancel_requests

    def uncancel(self):
        if self._apx_cancel_requests > 0:
            self._apx_cancel_requests -= 1
        return self._apx_cancel_requests

    def done(self):
        return self._apx_finished

    @property
    def _fut_waiter(self):
        return self._apx_waiter

    @property
    def _must_cancel(self):
        return self._apx_must_cancel

    def __repr__(self):
        state = "finished" if self._apx_finished else "pending"
        return f"<RequestTask {state} request={self._apx_id}>"


def cancelled_error(message):
    return asyncio.CancelledError() if message is None else asyncio.CancelledError(message)


def bad_yield(task, result):
    """The error asyncio's Task raises into a coroutine that yields something it cannot wait on."""
    if getattr(result, "_asyncio_future_blocking", None) is False:
        return RuntimeError(f"yield was used instead of yield from in task {task!r} with {result!r}")
    if result is task:
        return RuntimeError(f"Task cannot await on itself: {task!r}")
    return RuntimeError(f"Task got bad yield: {result!r}")


def other_loop_error(task, future):
    return RuntimeError(f"Task {task!r} got Future {future!r} attached to a different loop")


def as_coroutine(awaitable):
    """The iterator apx steps for an app's return value (a coroutine, or any awaitable)."""
    if asyncio.iscoroutine(awaitable):
        return awaitable
    if hasattr(awaitable, "__await__"):
        return awaitable.__await__()
    raise TypeError(f"an ASGI app must return an awaitable, got {type(awaitable).__name__}")


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
