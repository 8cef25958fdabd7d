"""An app whose import claims something the process can hold once, as a C extension that cannot be loaded
twice in one process would: an abstract unix socket named after the process. Of two runtimes of
--interpreters importing it, whichever claims second fails."""
import os
import socket
import sys

_claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    _claim.bind(f"\0apxtest-once-{os.getpid()}")
except OSError:
    _claim.close()
    raise ImportError("once_per_process_app is already loaded in this process") from None
sys.modules[__name__ + "._claim"] = _claim  # held for the process's life, whatever becomes of this module


async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"once"})
