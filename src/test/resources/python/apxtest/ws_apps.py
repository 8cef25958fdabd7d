"""Raw ASGI WebSocket apps, routed by path, for WebSocketTest and the Uvicorn differential run.

What the apps observe that a client cannot see (the disconnect message, the error a send raised)
is kept in `seen` by the connection's query string and read back over HTTP at /seen?ID.
"""
import asyncio
import json

seen = {}


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    if scope["type"] == "http":
        await http(scope, receive, send)
        return
    handler = ROUTES.get(scope["path"])
    if handler is None:
        await receive()
        await send({"type": "websocket.close"})
        return
    await handler(scope, receive, send)


async def http(scope, receive, send):
    if scope["path"] == "/seen":
        body = json.dumps(seen.get(scope["query_string"].decode())).encode()
    else:  # an upgrade request with --ws none arrives here as plain HTTP
        upgrade = dict(scope["headers"]).get(b"upgrade", b"").decode()
        body = json.dumps({"http": scope["path"], "upgrade": upgrade}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


async def echo(scope, receive, send):
    """Echoes text and bytes; picks 'chat' when offered; records the disconnect."""
    assert (await receive())["type"] == "websocket.connect"
    subprotocol = "chat" if "chat" in scope["subprotocols"] else None
    await send({"type": "websocket.accept", "subprotocol": subprotocol, "headers": [(b"x-echo", b"yes")]})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            seen[scope["query_string"].decode()] = {"code": message["code"]}
            return
        if message.get("text") is not None:
            await send({"type": "websocket.send", "text": message["text"]})
        else:
            await send({"type": "websocket.send", "bytes": message["bytes"]})


async def scope_of(scope, receive, send):
    """Sends the scope's plain fields as JSON."""
    await receive()
    await send({"type": "websocket.accept"})
    fields = {key: scope[key] for key in ("type", "scheme", "path", "root_path", "http_version", "subprotocols")}
    fields["query_string"] = scope["query_string"].decode()
    fields["raw_path"] = scope["raw_path"].decode()
    fields["extensions"] = sorted(scope["extensions"])
    fields["spec_version"] = scope["asgi"]["spec_version"]
    fields["has_method"] = "method" in scope
    await send({"type": "websocket.send", "text": json.dumps(fields)})
    await send({"type": "websocket.close"})


async def deny(scope, receive, send):
    await receive()
    await send({"type": "websocket.close"})


async def deny_response(scope, receive, send):
    await receive()
    await send({"type": "websocket.http.response.start", "status": 401,
                "headers": [(b"content-type", b"text/plain"), (b"x-why", b"no token")]})
    await send({"type": "websocket.http.response.body", "body": b"nope, ", "more_body": True})
    await send({"type": "websocket.http.response.body", "body": b"go away"})


async def close_code(scope, receive, send):
    """Closes with 4001 'bye' after the first message."""
    await receive()
    await send({"type": "websocket.accept"})
    await receive()
    await send({"type": "websocket.close", "code": 4001, "reason": "bye"})
    seen[scope["query_string"].decode()] = {"after_close": await receive()}


async def send_until_gone(scope, receive, send):
    """Sends until the client, which does not read, goes away: what does send() raise?"""
    await receive()
    await send({"type": "websocket.accept"})
    chunk = b"x" * 65536
    try:
        for _ in range(100_000):
            await send({"type": "websocket.send", "bytes": chunk})
    except Exception as error:
        seen[scope["query_string"].decode()] = {"error": type(error).__name__, "oserror": isinstance(error, OSError)}
        raise


async def slow_reader(scope, receive, send):
    """Reads nothing for a while, then checks every message arrived whole and in order."""
    await receive()
    await send({"type": "websocket.accept"})
    await asyncio.sleep(0.3)
    count = 0
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            break
        data = message["bytes"]
        if data != bytes([count % 256]) * len(data):
            break
        count += 1
    seen[scope["query_string"].decode()] = {"received": count}


async def raise_after_accept(scope, receive, send):
    await receive()
    await send({"type": "websocket.accept"})
    raise RuntimeError("boom after accept")


async def raise_before_accept(scope, receive, send):
    await receive()
    raise RuntimeError("boom before accept")


ROUTES = {
    "/echo": echo,
    "/scope": scope_of,
    "/deny": deny,
    "/deny-response": deny_response,
    "/close-code": close_code,
    "/send-until-gone": send_until_gone,
    "/slow-reader": slow_reader,
    "/raise-after-accept": raise_after_accept,
    "/raise-before-accept": raise_before_accept,
}
