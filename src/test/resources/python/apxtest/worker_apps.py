"""The apps of WorkersIT and ReloadIT (issue 14): several worker processes behind one socket.

/pid            the worker's process id (which worker answered)
/block?s=N      blocks the event loop for N seconds with time.sleep (the health check must catch it)
anything else   "ok"
"""
import os
import time


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    if scope["type"] != "http":
        return
    if scope["path"] == "/pid":
        body = str(os.getpid()).encode()
    elif scope["path"] == "/block":
        seconds = float(scope["query_string"].decode().partition("=")[2] or "30")
        time.sleep(seconds)  # synchronous: the event loop answers nothing meanwhile
        body = b"unblocked"
    else:
        body = b"ok"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain"),
                                                                       (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
