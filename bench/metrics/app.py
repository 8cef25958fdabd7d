"""The app bench/metrics/run loads: plaintext at /, a handler that computes for ~2 ms without
awaiting at /cpu (it holds the GIL and the loop: lag and GIL wait rise), /sleep awaits 5 ms."""
import asyncio
import time

_TEXT = [(b"content-type", b"text/plain")]


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    path = scope["path"]
    if path == "/cpu":
        until = time.perf_counter() + 0.002
        while time.perf_counter() < until:
            pass
    elif path == "/sleep":
        await asyncio.sleep(0.005)
    elif path == "/missing":
        await send({"type": "http.response.start", "status": 404, "headers": _TEXT})
        await send({"type": "http.response.body", "body": b"not found"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": _TEXT + [(b"content-length", b"13")]})
    await send({"type": "http.response.body", "body": b"Hello, world!"})
