"""Apps of WarmUpIT."""
_seen = 0


async def counting(scope, receive, send):
    """Answers with the number of HTTP requests this app has been called with, this one included."""
    global _seen
    if scope["type"] != "http":
        return
    _seen += 1
    body = str(_seen).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
