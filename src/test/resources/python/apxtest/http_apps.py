"""One small ASGI app per HTTP behaviour, routed by path, for the end-to-end tests (HttpServerTest)."""
import asyncio
import json
import os
import time

events = []  # what the apps observed that a client cannot see (disconnects, cancellations)


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                scope["state"]["greeting"] = "hello from lifespan"
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return
    route = ROUTES.get(scope["path"]) or (path_json if scope["path"].startswith("/path/") else not_found)
    await route(scope, receive, send)


async def respond(send, status, body, headers=()):
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())] + list(headers)})
    await send({"type": "http.response.body", "body": body})


async def read_body(receive):
    body = b""
    while True:
        message = await receive()
        assert message["type"] == "http.request", message
        body += message["body"]
        if not message.get("more_body", False):
            return body


async def not_found(scope, receive, send):
    await respond(send, 404, b"not found")


async def echo(scope, receive, send):
    await respond(send, 200, await read_body(receive))


async def echo_length(scope, receive, send):
    body = await read_body(receive)
    await respond(send, 200, str(len(body)).encode())


def _plain(value):
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


async def scope_json(scope, receive, send):
    await read_body(receive)
    shown = {k: v for k, v in scope.items() if k != "state"}
    shown["state"] = dict(scope["state"])
    shown["types"] = {k: type(v).__name__ for k, v in scope.items()}
    await respond(send, 200, json.dumps(_plain(shown)).encode(), [(b"x-dup", b"1"), (b"x-dup", b"2")])


async def stream(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    for i in range(5):
        await send({"type": "http.response.body", "body": b"chunk%d\n" % i, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def trickle(scope, receive, send):
    """Two chunks, then waits for the client to leave before a third: the client must get them while it waits."""
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"first\n", "more_body": True})
    await send({"type": "http.response.body", "body": b"second\n", "more_body": True})
    await receive()  # the (empty) request body
    try:
        await asyncio.wait_for(receive(), 30)  # http.disconnect once the client has read and left
    except asyncio.TimeoutError:
        pass
    await send({"type": "http.response.body", "body": b"late\n"})


async def big(scope, receive, send):
    size = int(scope["query_string"].decode() or "1048576")
    piece = b"x" * 65536
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(size).encode())]})
    sent = 0
    while sent < size:
        n = min(len(piece), size - sent)
        sent += n
        await send({"type": "http.response.body", "body": piece[:n], "more_body": sent < size})


async def fresh(scope, receive, send):
    """A body made anew for each request (N random bytes, N from the query string)."""
    body = os.urandom(int(scope["query_string"].decode() or "65536"))
    await respond(send, 200, body)


async def raise_before(scope, receive, send):
    raise RuntimeError("boom before start")


async def raise_after(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"partial", "more_body": True})
    raise RuntimeError("boom after start")


async def no_response(scope, receive, send):
    return None


async def body_first(scope, receive, send):
    await send({"type": "http.response.body", "body": b"too early"})


async def bad_status(scope, receive, send):
    await send({"type": "http.response.start", "status": "200", "headers": []})


async def bad_headers(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": [("x", "str, not bytes")]})


async def trailers(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "trailers": True,
                "headers": [(b"trailer", b"x-checksum")]})
    await send({"type": "http.response.body", "body": b"data", "more_body": False})
    await send({"type": "http.response.trailers", "headers": [(b"x-checksum", b"abc")], "more_trailers": False})


async def wait_disconnect(scope, receive, send):
    await read_body(receive)
    events.append("waiting")
    message = await receive()
    events.append(message["type"])


async def sleep_forever(scope, receive, send):
    try:
        await read_body(receive)
        events.append("sleeping")
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        events.append("cancelled")
        raise


async def show_events(scope, receive, send):
    await respond(send, 200, json.dumps(events).encode())


async def pathsend(scope, receive, send):
    path = os.path.join(os.path.dirname(__file__), "pathsend.txt")
    assert "http.response.pathsend" in scope["extensions"]
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(os.path.getsize(path)).encode())]})
    await send({"type": "http.response.pathsend", "path": path})


async def no_content(scope, receive, send):
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


async def path_json(scope, receive, send):
    shown = {k: scope[k] for k in ("method", "http_version", "path", "raw_path", "query_string", "root_path")}
    await respond(send, 200, json.dumps(_plain(shown)).encode())


async def headers_json(scope, receive, send):
    body = await read_body(receive)
    await respond(send, 200, json.dumps({"headers": _plain(scope["headers"]), "body": len(body)}).encode())


async def client(scope, receive, send):
    host, port = scope["client"]
    await respond(send, 200, f"{scope['scheme']} {host}:{port}".encode())


async def status(scope, receive, send):
    """The status from the query string, an empty body and no framing header: the server frames it."""
    await send({"type": "http.response.start", "status": int(scope["query_string"]), "headers": [(b"x-status", b"yes")]})
    await send({"type": "http.response.body", "body": b""})


async def delay(scope, receive, send):
    await read_body(receive)
    await asyncio.sleep(float(scope["query_string"]))
    await respond(send, 200, b"slept")


async def block(scope, receive, send):
    """Synchronous code in an async handler: holds the GIL, and so the loop, for the query's seconds."""
    time.sleep(float(scope["query_string"]))
    await respond(send, 200, b"blocked")


async def from_task(scope, receive, send):
    """The response is sent by a task of the app's own (as Starlette's StreamingResponse and
    BaseHTTPMiddleware do), which then lingers for the query's seconds."""
    await read_body(receive)

    async def respond_then_linger():
        await respond(send, 200, b"from a task")
        await asyncio.sleep(float(scope["query_string"] or 0))

    await asyncio.create_task(respond_then_linger())


async def pathsend_listen(scope, receive, send):
    """A task waits in receive() while the file goes out; it must then get http.disconnect."""
    await read_body(receive)
    listener = asyncio.ensure_future(receive())
    await asyncio.sleep(0)
    path = os.path.join(os.path.dirname(__file__), "pathsend.txt")
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(os.path.getsize(path)).encode())]})
    await send({"type": "http.response.pathsend", "path": path})
    try:
        message = await asyncio.wait_for(listener, 5)
        events.append("after pathsend: " + message["type"])
    except asyncio.TimeoutError:
        events.append("after pathsend: receive() still waiting")


ROUTES = {
    "/echo": echo, "/echo-length": echo_length, "/scope": scope_json, "/stream": stream, "/trickle": trickle, "/big": big, "/fresh": fresh,
    "/raise-before": raise_before, "/raise-after": raise_after, "/no-response": no_response,
    "/body-first": body_first, "/bad-status": bad_status, "/bad-headers": bad_headers,
    "/trailers": trailers, "/wait-disconnect": wait_disconnect, "/sleep": sleep_forever,
    "/events": show_events, "/pathsend": pathsend, "/no-content": no_content,
    "/headers": headers_json, "/client": client, "/status": status, "/delay": delay, "/pathsend-listen": pathsend_listen,
    "/block": block, "/from-task": from_task,
}
