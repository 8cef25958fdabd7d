"""Apps of WarmupIT."""
_seen = 0


async def counting(scope, receive, send):
    """Answers with the number of HTTP requests and WebSocket connections this app has been called with, this one
    included (a WebSocket is counted, then refused)."""
    global _seen
    if scope["type"] not in ("http", "websocket"):
        return
    _seen += 1
    if scope["type"] == "websocket":
        return
    body = str(_seen).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def counting_wsgi(environ, start_response):
    """The WSGI counterpart of counting."""
    global _seen
    _seen += 1
    body = str(_seen).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
