"""The app of RuntimesStressIT: every answer says which CPython runtime of the process gave it.

A runtime is told apart by id(sys.modules) (one dict per runtime, as bench/apps/runtimes.py's
GET /runtime), sent as the x-runtime header of every response and as the first message of every
WebSocket. Over TLS every response also carries x-tls: the tls_version of the scope's TLS extension
(so the client sees that runtime's scope was a TLS one). Bodies are derived from the request, so the client checks every byte:

GET  /runtime                          the runtime id
POST /echo                             the request body, as received (any framing)
GET  /stream?seed=S&chunks=N&size=B    N chunks, chunk i being body_of(S.i, B), yielding between them
GET  /slow?seed=S&ms=M&size=B          body_of(S.0, B) at once, body_of(S.1, B) M ms later
WS   /ws                               the runtime id, then every message echoed (text as text, bytes as bytes)

Lifespan shutdown appends one line of key=value per runtime to $APX_STRESS_MARKER: what this runtime served
(HTTP requests started and completed, WebSocket sessions and their close codes) and what was still running.
"""
import asyncio
import os
import sys
from urllib.parse import parse_qs

RUNTIME = str(id(sys.modules)).encode()
served = {"started": 0, "http": 0, "ws": 0, "ws_messages": 0, "in_flight": 0, "ws_close_codes": {}}
startups = 0


def body_of(seed, size):
    unit = (seed + ":").encode()
    return (unit * (size // len(unit) + 1))[:size]


def start(scope, status=200, length=None):
    headers = [(b"content-type", b"application/octet-stream"), (b"x-runtime", RUNTIME)]
    tls = scope.get("extensions", {}).get("tls")
    if scope["scheme"] == "https" and tls is not None:
        headers.append((b"x-tls", str(tls["tls_version"]).encode()))
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return {"type": "http.response.start", "status": status, "headers": headers}


async def read_body(receive):
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ConnectionError("client went away")
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def http(scope, receive, send):
    query = {k: v[0] for k, v in parse_qs(scope["query_string"].decode()).items()}
    path = scope["path"]
    if path == "/runtime":
        await send(start(scope, length=len(RUNTIME)))
        await send({"type": "http.response.body", "body": RUNTIME})
    elif path == "/echo":
        body = await read_body(receive)
        await send(start(scope, length=len(body)))
        await send({"type": "http.response.body", "body": body})
    elif path == "/stream":
        chunks, size = int(query["chunks"]), int(query["size"])
        await send(start(scope))
        for i in range(chunks):
            await send({"type": "http.response.body", "body": body_of("%s.%d" % (query["seed"], i), size), "more_body": True})
            await asyncio.sleep(0)
        await send({"type": "http.response.body", "body": b""})
    elif path == "/slow":
        size = int(query["size"])
        await send(start(scope, length=2 * size))
        await send({"type": "http.response.body", "body": body_of(query["seed"] + ".0", size), "more_body": True})
        await asyncio.sleep(int(query["ms"]) / 1000)
        await send({"type": "http.response.body", "body": body_of(query["seed"] + ".1", size)})
    else:
        await send(start(scope, 404, length=0))
        await send({"type": "http.response.body", "body": b""})


async def websocket(scope, receive, send):
    message = await receive()
    assert message["type"] == "websocket.connect", message
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": RUNTIME.decode()})
    served["ws"] += 1
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            code = str(message.get("code", 1000))
            served["ws_close_codes"][code] = served["ws_close_codes"].get(code, 0) + 1
            return
        served["ws_messages"] += 1
        if message.get("text") is not None:
            await send({"type": "websocket.send", "text": message["text"]})
        else:
            await send({"type": "websocket.send", "bytes": message["bytes"]})


async def lifespan(receive, send):
    global startups
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            startups += 1
        else:
            with open(os.environ["APX_STRESS_MARKER"], "a") as marker:
                codes = ",".join("%s:%d" % item for item in sorted(served["ws_close_codes"].items())) or "-"
                figures = " ".join("%s=%s" % (k, v) for k, v in served.items() if k != "ws_close_codes")
                marker.write("runtime=%s startups=%d %s ws_close_codes=%s\n" % (RUNTIME.decode(), startups, figures, codes))
        await send({"type": message["type"] + ".complete"})
        if message["type"] == "lifespan.shutdown":
            return


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
    elif scope["type"] == "websocket":
        await websocket(scope, receive, send)
    else:
        served["started"] += 1
        served["in_flight"] += 1
        try:
            await http(scope, receive, send)
            served["http"] += 1
        finally:
            served["in_flight"] -= 1
