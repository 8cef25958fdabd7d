"""ASGI apps for the bridge tests: each exercises one of the bridge's rules."""
import asyncio
import contextvars
import gc
import json
import sys
import threading
import time

import anyio
import sniffio


async def respond(send, body):
    if isinstance(body, str):
        body = body.encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": body})


async def trivial(scope, receive, send):
    await respond(send, b"ok")


async def echo(scope, receive, send):
    message = await receive()
    await respond(send, message["body"])


async def sleeper(scope, receive, send):
    await asyncio.sleep(0.001)
    await respond(send, b"slept")


async def stall(scope, receive, send):
    """Rule: work queued from a caller's drive must wake the loop."""
    loop = asyncio.get_running_loop()
    produced = loop.create_future()

    async def producer():
        produced.set_result(b"produced")

    loop.create_task(producer())
    await respond(send, await produced)


async def timer_stall(scope, receive, send):
    """A timer armed from a caller's drive (call_later) must wake the loop too."""
    await asyncio.sleep(0.01)
    await respond(send, b"timer")


async def queues_then_blocks(scope, receive, send):
    """Queues loop work, then runs synchronous code for 0.6 s in the same (first) step, as a handler
    that creates a task and then blocks does: the loop cannot run meanwhile, and is woken when the
    step ends. Not a missed wake-up."""
    asyncio.get_running_loop().call_soon(lambda: None)
    time.sleep(0.6)
    await respond(send, b"blocked")


unsafe_calls = []


def call_soon_from_another_thread(loop, token):
    """loop.call_soon from a thread that is not the loop's: queued, but nothing wakes the loop (the
    missed wake-up call_soon_threadsafe exists to prevent). Run on a thread of the test's."""
    loop.call_soon(unwoken_by_design, token)


def unwoken_by_design(token):
    """The callback queued without a wake-up; its name is how the tests' log sink knows the warning."""
    unsafe_calls.append(token)


def call_soon_threadsafe_from_another_thread(loop, token):
    """The threadsafe way: queued, and the loop woken through its self-pipe."""
    loop.call_soon_threadsafe(unwoken_by_design, token)


def unsafe_calls_count(token):
    return unsafe_calls.count(token)


async def mixed(scope, receive, send):
    """Tasks, sleep(0), sleep(0.001), anyio task groups and gather in one handler."""
    loop = asyncio.get_running_loop()
    child = loop.create_task(asyncio.sleep(0, result=1))
    await asyncio.sleep(0)
    await asyncio.sleep(0.001)
    async with anyio.create_task_group() as group:
        group.start_soon(asyncio.sleep, 0)
        group.start_soon(asyncio.sleep, 0.001)
    results = await asyncio.gather(child, asyncio.sleep(0, result=2), asyncio.sleep(0.001, result=3))
    await respond(send, str(sum(results)))


async def identity(scope, receive, send):
    """current_task() is the request's task in every step; sniffio and anyio see asyncio."""
    me = asyncio.current_task()
    checks = {"task": me is not None and asyncio.current_task() is me}
    await asyncio.sleep(0)
    checks["after_sleep0"] = asyncio.current_task() is me
    await asyncio.sleep(0.001)
    checks["after_sleep"] = asyncio.current_task() is me
    checks["sniffio"] = sniffio.current_async_library() == "asyncio"
    with anyio.CancelScope():
        await anyio.sleep(0)
        checks["in_scope"] = asyncio.current_task() is me
    async with anyio.create_task_group() as group:
        group.start_soon(anyio.sleep, 0)
    checks["after_group"] = asyncio.current_task() is me
    with anyio.move_on_after(0.01) as scope_:
        await anyio.sleep(1)
    checks["move_on_after"] = scope_.cancelled_caught
    try:
        await asyncio.wait_for(asyncio.sleep(1), 0.01)
        checks["wait_for"] = False
    except TimeoutError:
        checks["wait_for"] = True
    try:
        async with asyncio.timeout(0.01):  # cancels the current task itself, on every version
            await asyncio.sleep(1)
        checks["timeout"] = False
    except TimeoutError:
        checks["timeout"] = True
    checks["uncancelled"] = me.cancelling() == 0
    checks["running_loop"] = asyncio.get_running_loop() is me.get_loop()
    await respond(send, json.dumps(checks))


request_var = contextvars.ContextVar("request_var", default=None)


async def context_isolation(scope, receive, send):
    mine = scope["path"]
    inherited = request_var.get()
    if inherited is not None:
        await respond(send, "inherited: %r" % inherited)
        return
    request_var.set(mine)
    seen = []
    for i in range(6):
        await asyncio.sleep(0.001 if i % 2 else 0)
        seen.append(request_var.get())
    await respond(send, "ok" if all(v == mine for v in seen) else "leaked: %r" % seen)


async def context_then_linger(scope, receive, send):
    """Sets request_var and answers, then holds the loop thread in its last step: a request posted
    meanwhile begins where this task's done callback runs, in this request's context."""
    request_var.set(scope["path"])
    await asyncio.sleep(0)  # the rest is a later step, run by asyncio, so the task ends in a done callback
    await respond(send, "ok")
    time.sleep(0.5)


def _blocking(value):
    time.sleep(0.002)
    return value * 2


async def threads(scope, receive, send):
    loop = asyncio.get_running_loop()
    a = await asyncio.to_thread(_blocking, 2)
    b = await loop.run_in_executor(None, _blocking, 3)
    await respond(send, str(a + b))


async def anyio_worker(scope, receive, send):
    """The native id of the anyio worker thread that ran one to_thread call (Starlette's sync
    endpoints, FileResponse and UploadFile all go through anyio.to_thread)."""
    await respond(send, str(await anyio.to_thread.run_sync(threading.get_native_id)))


async def cancel_all_tasks(scope, receive, send):
    """Cancels every other task of the loop, as some apps do at their shutdown."""
    me = asyncio.current_task()
    for task in asyncio.all_tasks():
        if task is not me:
            task.cancel()
    await respond(send, "ok")


cancel_log = []


async def cancellable(scope, receive, send):
    """Catches the cancellation and goes on: asyncio's cancellation is edge-triggered."""
    try:
        await asyncio.sleep(10)
        cancel_log.append("not cancelled")
    except asyncio.CancelledError:
        cancel_log.append("cancelled")
        await asyncio.sleep(0.001)
        cancel_log.append("awaited again")
    await respond(send, b"survived")


async def cancel_not_caught(scope, receive, send):
    await asyncio.sleep(10)
    await respond(send, b"unreachable")


async def spinner(scope, receive, send):
    for _ in range(int(scope.get("spins", 1_000_000))):
        await asyncio.sleep(0)
    await respond(send, b"spun")


async def yields_to_loop(scope, receive, send):
    """sleep(0) must let the loop run what is already queued."""
    ran = []
    asyncio.get_running_loop().call_soon(ran.append, 1)
    await asyncio.sleep(0)
    await respond(send, "ok" if ran else "sleep(0) did not yield to the loop")


class _DoneFutureYielder:
    """An awaitable that yields a future which is already done (Future.__await__ never does);
    like Future.__await__ it takes the result from the future, as asyncio's task sends None."""

    def __await__(self):
        future = asyncio.get_running_loop().create_future()
        future.set_result(b"done already")
        future._asyncio_future_blocking = True
        yield future
        return future.result()


async def awaits_done_future(scope, receive, send):
    await respond(send, await _DoneFutureYielder())


async def blocks_after_await(scope, receive, send):
    """Synchronous code after an await, in a step asyncio's task takes (not the first)."""
    await asyncio.sleep(0.001)
    time.sleep(scope.get("seconds", 0.8))
    await respond(send, b"blocked")


async def threads_seen(scope, receive, send):
    """Which threads ran the handler: before and after a sleep, against the loop's thread (as a
    callback on the loop sees it)."""
    loop = asyncio.get_running_loop()
    before = threading.get_ident()
    seen = loop.create_future()
    loop.call_soon_threadsafe(lambda: seen.set_result(threading.get_ident()))
    loop_thread = await seen
    after = threading.get_ident()
    await asyncio.sleep(0.001)
    later = threading.get_ident()
    await respond(send, f"{before == loop_thread} {after == loop_thread} {later == loop_thread}")


async def failing(scope, receive, send):
    await asyncio.sleep(0)
    raise ValueError("handler failed")


async def bad_yield(scope, receive, send):
    class Weird:
        def __await__(self):
            yield "not a future"
    await Weird()


# --- background load on the loop


class Background:
    """Tasks that run on the loop next to the requests, started and stopped by the tests."""

    def __init__(self):
        self.stopping = False
        self.tasks = []
        self.errors = []

    def start_cpu_hogs(self, count, millis):
        loop = asyncio.get_running_loop()
        for _ in range(count):
            self.tasks.append(loop.create_task(self._hog(millis)))

    def start_gc(self):
        self.tasks.append(asyncio.get_running_loop().create_task(self._collect()))

    async def _hog(self, millis):
        while not self.stopping:
            end = time.perf_counter() + millis / 1000
            while time.perf_counter() < end:  # CPU-heavy step: the GIL switches in the middle
                pass
            await asyncio.sleep(0.03)

    async def _collect(self):
        while not self.stopping:
            gc.collect()
            await asyncio.sleep(0.001)

    def stop(self):
        self.stopping = True


def set_switch_interval(seconds):
    previous = sys.getswitchinterval()
    sys.setswitchinterval(seconds)
    return previous




def cancel_log_clear():
    cancel_log.clear()


def cancel_log_items():
    return list(cancel_log)


# A request started on the loop thread and a callback already in the loop's ready queue: which runs first.
order_log = []


def order_log_clear():
    order_log.clear()


def order_log_call_soon(name):
    asyncio.get_running_loop().call_soon(order_log.append, name)


async def order_log_request(scope, receive, send):
    order_log.append("request")
    await respond(send, "ok")


def order_log_items():
    return list(order_log)
