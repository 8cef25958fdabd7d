"""For RuntimesIT: the copy that claims the process's abstract socket first refuses to load, a later copy
loads: a race of two copies of an app that the process can hold once, lost by runtime 0."""
import os
import socket
import sys

from apxtest import lifespan

_claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    _claim.bind(f"\0apxtest-first-fails-{os.getpid()}")
except OSError:
    _claim.close()  # another copy claimed it first: this one loads
else:
    sys.modules[__name__ + "._claim"] = _claim  # held, so that every later copy finds it claimed
    raise ImportError("first_copy_fails_app lost the race in this runtime")


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        return await lifespan.complete(receive, send)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"loaded"})
