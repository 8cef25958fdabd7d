"""Raw ASGI apps for bench/run: one attribute per workload, no framework in the way."""
import asyncio
import os
import tempfile

_TEXT = [(b"content-type", b"text/plain")]
_HELLO = b"Hello, world!"
_10K = b"x" * 10240
_CHUNK = b"x" * 1024
_FILE_SIZE = 50 * 1024


async def hello(scope, receive, send):
    """Plaintext: 13 bytes."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": _TEXT + [(b"content-length", b"13")]})
    await send({"type": "http.response.body", "body": _HELLO})


async def get10k(scope, receive, send):
    """A 10 KiB body in one message."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": _TEXT + [(b"content-length", b"10240")]})
    await send({"type": "http.response.body", "body": _10K})


async def echo(scope, receive, send):
    """Reads the whole request body and sends it back."""
    if scope["type"] != "http":
        return
    chunks = []
    more = True
    while more:
        message = await receive()
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/octet-stream"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def stream(scope, receive, send):
    """64 body messages of 1 KiB each (chunked transfer encoding)."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": _TEXT})
    for _ in range(63):
        await send({"type": "http.response.body", "body": _CHUNK, "more_body": True})
    await send({"type": "http.response.body", "body": _CHUNK})


async def sleep(scope, receive, send):
    """Awaits asyncio.sleep(0.001), then answers as hello."""
    if scope["type"] != "http":
        return
    await asyncio.sleep(0.001)
    await send({"type": "http.response.start", "status": 200,
                "headers": _TEXT + [(b"content-length", b"13")]})
    await send({"type": "http.response.body", "body": _HELLO})


def file_50k():
    """The 50 KiB file the file workloads serve (made once per machine, in the temp directory)."""
    path = os.path.join(tempfile.gettempdir(), "apx-bench-50k.bin")
    if not os.path.exists(path) or os.path.getsize(path) != _FILE_SIZE:
        partial = f"{path}.{os.getpid()}"
        with open(partial, "wb") as out:
            out.write(bytes(range(256)) * (_FILE_SIZE // 256))
        os.replace(partial, path)
    return path


_FILE = file_50k()


async def pathsend(scope, receive, send):
    """The file by http.response.pathsend where the server offers it (apx); otherwise (Uvicorn)
    the same bytes read from the file and sent as one body, which is what a pathsend-aware app
    has to do without the extension."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/octet-stream"),
                            (b"content-length", str(_FILE_SIZE).encode())]})
    if "http.response.pathsend" in scope.get("extensions", {}):
        await send({"type": "http.response.pathsend", "path": _FILE})
    else:
        with open(_FILE, "rb") as f:
            await send({"type": "http.response.body", "body": f.read()})


async def ws_echo(scope, receive, send):
    """WebSocket echo (each message back as it came); a plain HTTP request gets 200 "ws" so the
    bench can tell the server is up."""
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": _TEXT + [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ws"})
        return
    if scope["type"] != "websocket":
        return
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        if message.get("bytes") is not None:
            await send({"type": "websocket.send", "bytes": message["bytes"]})
        else:
            await send({"type": "websocket.send", "text": message["text"]})
