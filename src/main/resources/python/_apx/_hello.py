"""apx's built-in ASGI app: no user code runs when apx warms itself up or trains its AOT cache.

  /        13 bytes of text            /stream  a chunked body in 8 messages
  /echo    the request body back       /sleep   answers after a task and asyncio.sleep(0)
  /big     256 KiB in one message (past Netty's 64 KiB high-water mark: the writability path)
  other    404
  websocket: accepts and echoes each message until the client closes
/sleep suspends, so the bridge's continuation path (the loop thread resuming a request) runs too,
as it does for framework apps (FastAPI, Starlette) and anything that awaits I/O.
"""
import asyncio

_TEXT = [(b"content-type", b"text/plain")]
_CHUNK = b"x" * 512
_BIG = b"x" * (256 * 1024)


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    if scope["type"] == "websocket":
        await _echo(receive, send)
        return
    if scope["type"] != "http":
        return
    path = scope["path"]
    if path == "/echo":
        body, more = [], True
        while more:
            message = await receive()
            body.append(message.get("body", b""))
            more = message.get("more_body", False)
        await _answer(send, 200, b"".join(body))
    elif path == "/stream":
        await send({"type": "http.response.start", "status": 200, "headers": _TEXT})
        for _ in range(7):
            await send({"type": "http.response.body", "body": _CHUNK, "more_body": True})
        await send({"type": "http.response.body", "body": _CHUNK})
    elif path == "/sleep":
        await asyncio.create_task(asyncio.sleep(0))
        await asyncio.sleep(0)
        await _answer(send, 200, b"Hello, world!")
    elif path == "/big":
        await _answer(send, 200, _BIG)
    elif path == "/" or path.startswith("/p/"):
        await _answer(send, 200, b"Hello, world!")
    else:
        await _answer(send, 404, b"Not Found")


async def _answer(send, status, body):
    await send({"type": "http.response.start", "status": status,
                "headers": _TEXT + [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _echo(receive, send):
    message = await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        if message.get("text") is not None:
            await send({"type": "websocket.send", "text": message["text"]})
        else:
            await send({"type": "websocket.send", "bytes": message["bytes"]})
