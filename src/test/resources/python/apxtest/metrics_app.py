"""The app MetricsIT counts: a few statuses, a body echo, its own /metrics route and a WebSocket echo."""


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            await send({"type": "websocket.send", "text": message.get("text") or ""})
    path = scope["path"]
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    if path == "/fail":
        raise RuntimeError("this handler fails on purpose")
    status, text = {"/": (200, b"ok"), "/metrics": (200, b"the app's own metrics"), "/echo": (200, body)}.get(path, (404, b"nope"))
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": text})
