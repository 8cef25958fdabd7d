"""Apps for the TLS and HTTP/2 tests (TlsTest, Http2Test, h2_client.py): what the scope says, streams, resets."""
import asyncio
import json
import os

events = {"sent": 0, "disconnects": 0}


async def _body(receive):
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def _text(send, status, text, headers=()):
    data = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(data)).encode()), *headers]})
    await send({"type": "http.response.body", "body": data})


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        message = await receive()
        tls = scope["extensions"].get("tls")
        await send({"type": "websocket.send", "text": json.dumps({
            "scheme": scope["scheme"], "echo": message.get("text"), "tls": tls is not None})})
        await send({"type": "websocket.close"})
        return
    path = scope["path"]
    if path == "/scope":
        body = await _body(receive)
        tls = scope["extensions"].get("tls")
        await _text(send, 200, json.dumps({
            "http_version": scope["http_version"], "scheme": scope["scheme"], "method": scope["method"],
            "path": scope["path"], "query_string": scope["query_string"].decode(),
            "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]],
            "body": len(body), "tls": tls and {**tls, "client_cert_chain": list(tls["client_cert_chain"])},
        }))
    elif path == "/stream":  # size bytes in 64 KiB chunks, counting what send() let through
        size = int(scope["query_string"].decode() or "0")
        events["sent"] = 0
        chunk = b"x" * 65536
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(size).encode())]})
        while events["sent"] < size:
            part = chunk[:size - events["sent"]]
            await send({"type": "http.response.body", "body": part, "more_body": True})
            events["sent"] += len(part)
        await send({"type": "http.response.body", "body": b""})
    elif path == "/events":
        await _text(send, 200, json.dumps(events))
    elif path == "/wait-for-disconnect":  # answers nothing; counts the disconnect a reset brings
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                events["disconnects"] += 1
                return
    elif path == "/slow":
        await asyncio.sleep(float(scope["query_string"].decode() or "1"))
        await _text(send, 200, "slow done")
    elif path == "/trailers":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")],
                    "trailers": True})
        await send({"type": "http.response.body", "body": b"body then trailers"})
        await send({"type": "http.response.trailers", "headers": [(b"x-checksum", b"abc123")]})
    elif path == "/file":
        file = os.path.join(os.path.dirname(__file__), "pathsend.txt")
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", str(os.path.getsize(file)).encode())]})
        await send({"type": "http.response.pathsend", "path": file})
    elif path == "/upload":
        body = await _body(receive)
        await _text(send, 200, str(len(body)))
    else:
        await _text(send, 404, "not found")
