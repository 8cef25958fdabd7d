"""For RuntimesIT: the first runtime to import this creates and deletes pthread keys for 3 s from its import on, as
a Rust or C extension's thread-locals do (Rust aborts the process, "out of TLS keys", when one fails), while the
other runtimes of --interpreters start beside it and after it; it answers with how many creates failed."""
import ctypes
import os
import socket
import sys
import threading
import time

from apxtest import lifespan

_counts = {"created": 0, "failed": 0}


def _create_keys(seconds):
    libc = ctypes.CDLL(None)  # in runtime 0: the base namespace's libc, where the other runtimes reserve their keys
    key = ctypes.c_uint()
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if libc.pthread_key_create(ctypes.byref(key), None) != 0:
            _counts["failed"] += 1
        else:
            _counts["created"] += 1
            libc.pthread_key_delete(key)


_claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    _claim.bind(f"\0apxtest-key-hungry-{os.getpid()}")
except OSError:
    _claim.close()
    _counts = None  # a later runtime: it only answers
else:
    sys.modules[__name__ + "._claim"] = _claim
    _keys = threading.Thread(target=_create_keys, args=(3.0,), daemon=True)
    _keys.start()


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        return await lifespan.complete(receive, send)
    if _counts is not None:
        _keys.join()
    body = f"{id(sys.modules)} {_counts}".encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
