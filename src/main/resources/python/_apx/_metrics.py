"""What --metrics reads from Python (docs/metrics.md): the event loop's lag, its ready queue, the
tasks alive, and the garbage collector's collections and pause time.

One timer on the loop measures everything, INTERVAL apart, and hands the figures to Java in one
call (report), so a scrape never needs the GIL. The timer's lateness is the loop's lag: how long
a callback that was due waited behind others (or behind a handler running synchronous code).
A runtime without a loop (WSGI) counts the collections only (watch_gc), and Java's GIL probe
fetches the totals (report_gc). Each runtime of --interpreters has its own copy of this module.
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


_watchers = [0]  # watch_gc calls not stopped yet: the callback stays while any is left


def watch_gc():
    """Counts collections from now on; returns the function that stops it (with the GIL; once is enough)."""
    if _watchers[0] == 0 and _on_gc not in gc.callbacks:
        gc.callbacks.append(_on_gc)
    _watchers[0] += 1
    stopped = [False]

    def stop():
        if stopped[0]:
            return
        stopped[0] = True
        _watchers[0] -= 1
        if _watchers[0] == 0 and _on_gc in gc.callbacks:
            gc.callbacks.remove(_on_gc)

    return stop


def report_gc(report):
    """`report(collections, pauses)`: the totals since watch_gc."""
    report(tuple(_collections), tuple(_pauses))


def start(loop, report):
    """Starts the timer on `loop` (call on the loop's thread); `report(lag, ready, tasks, collections, pauses)`.

    Returns the function that stops it (any thread, with the GIL).
    """
    stop_gc = watch_gc()
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
        stop_gc()

    first = loop.time() + INTERVAL
    loop.call_at(first, tick, first)
    return stop
