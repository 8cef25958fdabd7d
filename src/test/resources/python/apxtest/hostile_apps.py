"""The app behind the hardening tests (RequestRejectionTest, fuzzing, slow clients, disconnects).

Every scope it gets is checked for well-formedness and remembered by path, so a test can ask
whether a refused request reached the app (/seen). Every handler ends in exactly one of: completed,
disconnect (receive() returned http.disconnect), cancelled (CancelledError); /stats counts them and
Python's live objects.
"""
import asyncio
import ctypes
import gc
import json
import re

TOKEN = re.compile(rb"^[!#$%&'*+\-.^_`|~0-9a-z]+$")  # header names arrive lowercased
METHOD = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")

seen = []          # paths of every request that reached the app (last 1000)
malformed = []     # descriptions of scopes that break the ASGI/HTTP rules (must stay empty)
counts = {"started": 0, "completed": 0, "disconnect": 0, "cancelled": 0, "failed": 0}


def check_scope(scope):
    problems = []
    if not METHOD.match(scope["method"]):
        problems.append("method %r" % scope["method"])
    if scope["http_version"] not in ("1.0", "1.1"):
        problems.append("http_version %r" % scope["http_version"])
    raw = scope["raw_path"]
    if not isinstance(raw, bytes) or any(b <= 0x20 or b == 0x7F for b in raw):
        problems.append("raw_path %r" % raw)
    for name, value in scope["headers"]:
        if not TOKEN.match(name):
            problems.append("header name %r" % name)
        if any(b in (0, 10, 13) for b in value) or value != value.strip(b" \t"):
            problems.append("header value %r" % value)
    if problems:
        malformed.append("%s %r: %s" % (scope["method"], raw, ", ".join(problems)))


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    check_scope(scope)
    path = scope["path"]
    if path in ("/seen", "/stats"):
        await respond(send, 200, json.dumps(report(path)).encode())
        return
    seen.append(path)
    del seen[:-1000]
    handler = ROUTES.get(path.split("/")[1] if "/" in path else "", echo)
    counts["started"] += 1
    try:
        outcome = await handler(scope, receive, send)
    except asyncio.CancelledError:
        counts["cancelled"] += 1
        raise
    except Exception:
        counts["failed"] += 1
        raise
    counts[outcome or "completed"] += 1


def report(path):
    if path == "/seen":
        return {"seen": seen, "malformed": malformed}
    gc.collect()
    trim_malloc()
    objects = gc.get_objects()
    kinds = {}
    for o in objects:
        name = type(o).__name__
        kinds[name] = kinds.get(name, 0) + 1
    top = dict(sorted(kinds.items(), key=lambda kv: -kv[1])[:12])
    return dict(counts, objects=len(objects), malformed=len(malformed), kinds=top)


def trim_malloc():
    """Hands glibc's free arena memory back to the OS, so that RSS measures what is in use, not
    what many threads' arenas happen to keep (hundreds of MiB that come and go)."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc


async def respond(send, status, body):
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def read_body(receive):
    """The body, or None when the client went away first."""
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body += message.get("body", b"")
        if not message.get("more_body", False):
            return body


async def echo(scope, receive, send):
    body = await read_body(receive)
    if body is None:
        return "disconnect"
    if scope["method"] == "HEAD":  # 204: no body for a client to frame
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    await respond(send, 200, b"%d bytes" % len(body))


async def big(scope, receive, send):
    """A fixed-size response of the query string's size in 64 KiB sends."""
    if await read_body(receive) is None:
        return "disconnect"
    size = int(scope["query_string"] or b"1048576")
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(size).encode())]})
    piece = b"x" * 65536
    sent = 0
    while sent < size:
        n = min(len(piece), size - sent)
        sent += n
        await send({"type": "http.response.body", "body": piece[:n], "more_body": sent < size})


async def endless(scope, receive, send):
    """Streams until the client goes away (then the server cancels it)."""
    if await read_body(receive) is None:
        return "disconnect"
    await send({"type": "http.response.start", "status": 200, "headers": []})
    while True:
        await send({"type": "http.response.body", "body": b"tick\n" * 200, "more_body": True})
        await asyncio.sleep(0)


async def sleep(scope, receive, send):
    if await read_body(receive) is None:
        return "disconnect"
    await asyncio.sleep(float(scope["query_string"] or b"3600"))
    await respond(send, 200, b"slept")


async def later(scope, receive, send):
    """Echoes the body's size, asking for it only after the query string's seconds."""
    await asyncio.sleep(float(scope["query_string"] or b"1"))
    return await echo(scope, receive, send)


async def ignore(scope, receive, send):
    """Answers without asking for the body."""
    await respond(send, 200, b"ignored")


ROUTES = {"big": big, "endless": endless, "sleep": sleep, "later": later, "ignore": ignore}
