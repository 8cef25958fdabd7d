"""bench/gc-rate's app: bench/apps/db.py's app with Python's cyclic collector counted.

Every collection is counted by generation with its thread CPU time (gc.callbacks); GET /gcstats
returns the counts since the last read (and resets them), with the requests served in between
and which threads started the generation-0 collections.
"""
import collections
import gc
import json
import threading
import time

from db import app as db_app

_stats = {generation: [0, 0.0] for generation in range(3)}  # collections, thread CPU seconds
_threads = collections.Counter()  # thread name (from /proc) -> generation-0 collections started there
_requests = [0]
_started = [0.0]


def _thread_name():
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return threading.current_thread().name


def _on_gc(phase, info):
    if phase == "start":
        _started[0] = time.thread_time()
        if info["generation"] == 0:
            _threads[_thread_name()] += 1
    else:
        counted = _stats[info["generation"]]
        counted[0] += 1
        counted[1] += time.thread_time() - _started[0]


gc.callbacks.append(_on_gc)


async def app(scope, receive, send):
    if scope["type"] == "http" and scope["path"] == "/gcstats":
        body = json.dumps({"requests": _requests[0], "collections": {g: s[0] for g, s in _stats.items()},
                           "cpu_seconds": {g: s[1] for g, s in _stats.items()}, "threads": dict(_threads),
                           "threshold": gc.get_threshold()}).encode()
        for counted in _stats.values():
            counted[:] = [0, 0.0]
        _threads.clear()
        _requests[0] = 0
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})
        return
    if scope["type"] == "http":
        _requests[0] += 1
    await db_app(scope, receive, send)
