"""For RuntimesIT: the first runtime that imports this module is quick; every later one (another
runtime of the same process) waits until the file $APX_TEST_RELEASE exists, so a test can act while
the first runtime serves and the others are still starting."""
import os
import sys
import time

_claim = os.environ["APX_TEST_RELEASE"] + ".first"
try:
    os.close(os.open(_claim, os.O_CREAT | os.O_EXCL))  # the first importer in the process wins
except FileExistsError:
    deadline = time.monotonic() + 60
    while not os.path.exists(os.environ["APX_TEST_RELEASE"]) and time.monotonic() < deadline:
        time.sleep(0.02)


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            kind = message["type"].rsplit(".", 1)[-1]
            await send({"type": message["type"] + ".complete"})
            if kind == "shutdown":
                return
    body = str(id(sys.modules)).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
