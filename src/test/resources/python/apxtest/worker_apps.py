"""The apps of WorkersIT and ReloadIT: several worker processes behind one socket.

/pid            the worker's process id (which worker answered)
/who            "PID RUNTIME": the worker and its CPython runtime (id(sys.modules): one per runtime)
/block?s=N      blocks the event loop for N seconds with time.sleep (the health check must catch it)
anything else   "ok"

With $APX_WORKERS_MARKER set, each runtime appends "startup PID RUNTIME" at lifespan startup and
"shutdown PID RUNTIME STARTED FINISHED" (the requests it started and finished) at lifespan shutdown.
"""
import os
import sys
import time

RUNTIME = str(id(sys.modules))
served = {"started": 0, "finished": 0}


def mark(line):
    marker = os.environ.get("APX_WORKERS_MARKER")
    if marker:
        with open(marker, "a") as f:
            f.write(line + "\n")


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                mark("startup %d %s" % (os.getpid(), RUNTIME))
            else:
                mark("shutdown %d %s %d %d" % (os.getpid(), RUNTIME, served["started"], served["finished"]))
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    if scope["type"] != "http":
        return
    served["started"] += 1
    if scope["path"] == "/pid":
        body = str(os.getpid()).encode()
    elif scope["path"] == "/who":
        body = ("%d %s" % (os.getpid(), RUNTIME)).encode()
    elif scope["path"] == "/block":
        seconds = float(scope["query_string"].decode().partition("=")[2] or "30")
        time.sleep(seconds)  # synchronous: the event loop answers nothing meanwhile
        body = b"unblocked"
    else:
        body = b"ok"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain"),
                                                                       (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
    served["finished"] += 1
