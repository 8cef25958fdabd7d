"""What --metrics reads from Python (docs/metrics.md): the event loop's lag, its ready queue, the
tasks alive, and the garbage collector's collections and pause time.

One timer on the loop measures everything, INTERVAL apart, and hands the figures to Java in one
call (report), so a scrape never needs the GIL. The timer's lateness is the loop's lag: how long
a callback that was due waited behind others (or behind a handler running synchronous code).
"""
import asyncio
import gc
import time

INTERVAL = 0.25

_collections = [0, 0, 0]
_pauses = [0.0, 0.0, 0.0]
_gc_started = [0.0]


def _on_gc(phase, info):
    # Runs on whichever thread collects, with the GIL: two clock reads per collection.
    if phase == "start":
        _gc_started[0] = time.perf_counter()
    else:
        generation = min(info.get("generation", 0), 2)
        _collections[generation] += 1
        _pauses[generation] += time.perf_counter() - _gc_started[0]


def start(loop, report):
    """Starts the timer on `loop` (call on the loop's thread); `report(lag, ready, tasks, collections, pauses)`.

    Returns the function that stops it (any thread, with the GIL).
    """
    if _on_gc not in gc.callbacks:
        gc.callbacks.append(_on_gc)
    running = [True]
    ready = getattr(loop, "_ready", None)  # asyncio's; uvloop keeps its queue in C

    def tick(due):
        if not running[0]:
            return
        lag = max(0.0, loop.time() - due)
        report(lag, -1 if ready is None else len(ready), len(asyncio.all_tasks(loop)),
               tuple(_collections), tuple(_pauses))
        next_due = loop.time() + INTERVAL
        loop.call_at(next_due, tick, next_due)

    def stop():
        running[0] = False
        if _on_gc in gc.callbacks:
            gc.callbacks.remove(_on_gc)

    first = loop.time() + INTERVAL
    loop.call_at(first, tick, first)
    return stop
