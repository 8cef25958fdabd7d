"""The app of ShutdownUnderLoadIT: a graceful shutdown while many requests run.

/slow/ID?ms=M&size=S   waits for the gate file (the test creates it once the server is shutting
                       down, so these responses start during the shutdown), sleeps M ms, then sends
                       S bytes with a content-length
/stream/ID?chunks=N&size=S&ms=M
                       starts a chunked response at once and sends half of its N chunks of S bytes,
                       waits for the gate, then sends the rest M ms apart
/upload/ID             reads the whole request body (the client sends half of it before SIGTERM, the
                       rest after) and sends it back
/quick/ID?size=S       answers at once (the test's idle keep-alive connections)
/stuck/ID?started=0|1  never finishes (with started=1 after sending its head and one chunk); the
                       server cancels it when --timeout-graceful-shutdown runs out

Bodies are `body_of(ID, length)`, which the test rebuilds to check every byte. Each request
prints "started ID" (the test waits for all of them before SIGTERM) and "cancelled ID" when it
gets CancelledError. Lifespan shutdown writes what the requests did into $APX_SHUTDOWN_MARKER as
JSON: it runs after the last request ended, so nothing may be left running by then.
"""
import asyncio
import json
import os
from urllib.parse import parse_qs

counts = {"started": 0, "completed": 0, "cancelled": 0, "failed": 0}
GATE_POLL = 0.02
gate = None        # an asyncio.Event, set once the gate file exists
gate_poller = []   # keeps a reference to the task that polls for it


def body_of(request_id, length):
    """`ID:` repeated and cut at `length` bytes (the test builds the same)."""
    unit = f"{request_id}:".encode()
    return (unit * (length // len(unit) + 1))[:length]


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return
    kind, request_id = scope["path"].strip("/").split("/")
    query = {k: int(v[0]) for k, v in parse_qs(scope["query_string"].decode()).items()}
    counts["started"] += 1
    print("started", request_id, flush=True)
    try:
        await ROUTES[kind](request_id, query, receive, send)
    except asyncio.CancelledError:
        counts["cancelled"] += 1
        print("cancelled", request_id, flush=True)
        raise
    except BaseException:
        counts["failed"] += 1
        raise
    counts["completed"] += 1


async def lifespan(receive, send):
    while True:
        message = await receive()
        if message["type"] == "lifespan.shutdown":
            running = counts["started"] - counts["completed"] - counts["cancelled"] - counts["failed"]
            with open(os.environ["APX_SHUTDOWN_MARKER"], "w") as marker:
                json.dump(dict(counts, running=running), marker)
        await send({"type": message["type"] + ".complete"})
        if message["type"] == "lifespan.shutdown":
            return


async def wait_for_gate():
    """One task polls for the file; the waiters (hundreds) share its event."""
    global gate
    if gate is None:
        gate = asyncio.Event()
        gate_poller.append(asyncio.get_running_loop().create_task(poll_gate(gate)))
    await gate.wait()


async def poll_gate(event):
    while not os.path.exists(os.environ["APX_SHUTDOWN_GATE"]):
        await asyncio.sleep(GATE_POLL)
    event.set()


async def slow(request_id, query, receive, send):
    await wait_for_gate()
    await asyncio.sleep(query["ms"] / 1000)
    body = body_of(request_id, query["size"])
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def stream(request_id, query, receive, send):
    size = query["size"]
    body = body_of(request_id, query["chunks"] * size)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    for chunk in range(query["chunks"]):
        if chunk == query["chunks"] // 2:
            await wait_for_gate()
        else:
            await asyncio.sleep(query["ms"] / 1000)
        await send({"type": "http.response.body", "body": body[chunk * size:(chunk + 1) * size], "more_body": True})
    await send({"type": "http.response.body", "body": b""})


async def quick(request_id, query, receive, send):
    body = body_of(request_id, query["size"])
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def upload(request_id, query, receive, send):
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise RuntimeError("upload %s: the client left after %d bytes" % (request_id, len(body)))
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": bytes(body)})


async def stuck(request_id, query, receive, send):
    if query["started"]:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body_of(request_id, 100), "more_body": True})
    await asyncio.sleep(3600)


ROUTES = {"slow": slow, "stream": stream, "upload": upload, "stuck": stuck, "quick": quick}
