"""apx's built-in WSGI app: what the start-up warm-up of a WSGI server calls (never the user's app).

The same paths as _hello: / (13 bytes), /stream (a body in 8 pieces, no length), /echo (the
request body back, read from wsgi.input), /big (256 KiB), /sleep (as /), other 404.
"""
_TEXT = ("Content-Type", "text/plain")
_CHUNK = b"x" * 512
_BIG = b"x" * (256 * 1024)


def app(environ, start_response):
    path = environ.get("PATH_INFO", "")
    if path == "/echo":
        body = environ["wsgi.input"].read()
        return _answer(start_response, "200 OK", body)
    if path == "/stream":
        start_response("200 OK", [_TEXT])
        return _pieces()
    if path == "/big":
        return _answer(start_response, "200 OK", _BIG)
    if path in ("/", "/sleep") or path.startswith("/p/"):
        return _answer(start_response, "200 OK", b"Hello, world!")
    return _answer(start_response, "404 Not Found", b"Not Found")


def _pieces():
    for _ in range(8):
        yield _CHUNK


def _answer(start_response, status, body):
    start_response(status, [_TEXT, ("Content-Length", str(len(body)))])
    return [body]
