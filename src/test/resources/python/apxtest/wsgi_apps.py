"""Plain WSGI apps (PEP 3333, no framework) for the WSGI tests: one route per behaviour."""
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FILE = os.path.join(HERE, "pathsend.txt")

# What the close() of each /tracked iterable saw, by the request's ?tag: the tests read it back.
closed = {}
closed_event = threading.Condition()
# The largest number of chunks /endless had produced but not handed to the server yet.
produced = {}


class Tracked:
    """An iterable whose close() is recorded: endless (a slow or vanished client) or N chunks."""

    def __init__(self, tag, chunks, size):
        self.tag = tag
        self.chunks = chunks
        self.size = size
        self.sent = 0

    def __iter__(self):
        while self.chunks is None or self.sent < self.chunks:
            self.sent += 1
            produced[self.tag] = self.sent
            yield b"x" * self.size

    def close(self):
        with closed_event:
            closed[self.tag] = self.sent
            closed_event.notify_all()


def wait_closed(tag, timeout):
    """How many chunks the iterable tagged `tag` had yielded when it was closed; None if not closed in time."""
    with closed_event:
        closed_event.wait_for(lambda: tag in closed, timeout)
        return closed.get(tag)


def environ_view(environ):
    keys = ["REQUEST_METHOD", "SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "SERVER_PROTOCOL", "CONTENT_TYPE",
            "CONTENT_LENGTH", "REMOTE_ADDR", "SERVER_NAME", "wsgi.url_scheme", "wsgi.multithread", "wsgi.multiprocess",
            "wsgi.run_once"]
    view = {key: environ.get(key) for key in keys}
    view.update({key: value for key, value in environ.items() if key.startswith("HTTP_")})
    if "HTTP_HOST" in view:
        view["HTTP_HOST"] = view["HTTP_HOST"].split(":")[0]  # the two servers' ports differ
    view["wsgi.version"] = list(environ["wsgi.version"])
    view["types"] = sorted({type(value).__name__ for key, value in environ.items() if key.isupper()})
    view["SERVER_PORT is str"] = isinstance(environ["SERVER_PORT"], str)
    return view


def app(environ, start_response):
    path = environ["PATH_INFO"]
    query = environ["QUERY_STRING"]
    text = [("Content-Type", "text/plain")]

    if path == "/echo":
        body = environ["wsgi.input"].read()
        start_response("200 OK", text + [("Content-Length", str(len(body)))])
        return [body]
    if path == "/echo-parts":  # reads in small pieces and by lines: the streamed wsgi.input
        stream = environ["wsgi.input"]
        first = stream.read(3)
        line = stream.readline()
        rest = b"".join(iter(lambda: stream.read(5), b""))
        body = b"%d|%s|%s|%s" % (len(first + line + rest), first, line, rest)
        start_response("200 OK", text)
        return [body]
    if path == "/echo-length":
        total = 0
        while True:
            chunk = environ["wsgi.input"].read(65536)
            if not chunk:
                break
            total += len(chunk)
        start_response("200 OK", text)
        return [str(total).encode()]
    if path == "/environ":
        body = json.dumps(environ_view(environ), sort_keys=True).encode()
        start_response("200 OK", [("Content-Type", "application/json")])
        return [body]
    if path == "/stream":
        start_response("200 OK", text)
        return (b"chunk%d\n" % i for i in range(5))
    if path == "/write":  # the legacy write() callable, then the iterable
        write = start_response("201 Created", text)
        write(b"written ")
        write(b"")
        return [b"and ", b"returned"]
    if path == "/status":
        start_response(query.replace("+", " ") or "299 Custom Reason", text + [("Content-Length", "6")])
        return [b"status"]
    if path == "/headers":
        start_response("200 OK", text + [("X-Custom", "a b"), ("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2"),
                                         ("Content-Length", "2")])
        return [b"ok"]
    if path == "/cookies":
        body = environ.get("HTTP_COOKIE", "").encode("latin-1")
        start_response("200 OK", text + [("Content-Length", str(len(body)))])
        return [body]
    if path == "/redirect":
        start_response("302 Found", [("Location", "/environ?from=redirect"), ("Content-Length", "0")])
        return []
    if path == "/empty":
        start_response("204 No Content", [])
        return []
    if path == "/raise-before":
        raise RuntimeError("raised before the response")
    if path == "/raise-after":
        start_response("200 OK", text)

        def body():
            yield b"first part\n"
            raise RuntimeError("raised after the response started")
        return body()
    if path == "/exc-info":  # the app's error page replaces its first status, as PEP 3333 allows before sending
        start_response("200 OK", text)
        try:
            raise ValueError("boom")
        except ValueError:
            start_response("500 Internal Server Error", text + [("Content-Length", "5")], sys.exc_info())
        return [b"oops\n"]
    if path == "/exc-info-late":  # after the head went out, start_response(exc_info) re-raises: the connection closes

        def body():
            yield b"sent\n"
            try:
                raise ValueError("too late")
            except ValueError:
                start_response("500 Internal Server Error", text, sys.exc_info())
            yield b"never\n"
        start_response("200 OK", text)
        return body()
    if path == "/twice":  # start_response twice without exc_info is an error
        start_response("200 OK", text)
        start_response("200 OK", text)
        return [b"no"]
    if path == "/inject":  # a header value carrying CR LF: refused, never sent
        start_response("200 OK", [("X-Value", "a\r\nX-Evil: 1")])
        return [b"no"]
    if path == "/file":
        start_response("200 OK", text + [("Content-Length", str(os.path.getsize(FILE)))])
        return environ["wsgi.file_wrapper"](open(FILE, "rb"), 4096)
    if path == "/file-unsized":
        start_response("200 OK", text)
        return environ["wsgi.file_wrapper"](open(FILE, "rb"))
    if path == "/file-zero-copy":  # a file whose read() fails: only a server that never reads it through Python answers
        handle = open(FILE, "rb")

        class NoReads:
            def fileno(self):
                return handle.fileno()

            def tell(self):
                return handle.tell()

            def read(self, size=-1):
                raise AssertionError("the file was read through Python")

            def close(self):
                handle.close()
        start_response("200 OK", text + [("Content-Length", str(os.path.getsize(FILE)))])
        return environ["wsgi.file_wrapper"](NoReads())
    if path == "/big":
        size = int(query or "100000")
        start_response("200 OK", text + [("Content-Length", str(size))])
        return (b"b" * min(65536, size - at) for at in range(0, size, 65536))
    if path == "/tracked":  # ?tag&chunks (empty chunks: endless)
        tag, _, chunks = query.partition("&")
        start_response("200 OK", [("Content-Type", "application/octet-stream")])
        return Tracked(tag, int(chunks) if chunks else None, 65536)
    if path == "/sleep":
        time.sleep(float(query or "1"))
        start_response("200 OK", text + [("Content-Length", "5")])
        return [b"slept"]
    if path == "/errors":  # wsgi.errors goes to the server's log
        print("a line for wsgi.errors", file=environ["wsgi.errors"])
        environ["wsgi.errors"].flush()
        start_response("200 OK", text + [("Content-Length", "2")])
        return [b"ok"]
    start_response("404 Not Found", text + [("Content-Length", "9")])
    return [b"not found"]


# --interface auto: what Uvicorn would decide for each of these
async def asgi3_function(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"asgi3"})


class Asgi2Class:
    """The ASGI 2 form: the class is called with the scope, its instance with receive and send."""

    def __init__(self, scope):
        self.scope = scope

    async def __call__(self, receive, send):
        if self.scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"asgi2 " + self.scope["path"].encode()})


class Asgi3Class:
    """Instances are awaitable: Uvicorn takes such a class for ASGI 3."""

    def __init__(self, scope, receive, send):
        self.args = (scope, receive, send)

    def __await__(self):
        return asgi3_function(*self.args).__await__()


class Asgi3Object:
    async def __call__(self, scope, receive, send):
        await asgi3_function(scope, receive, send)


asgi3_object = Asgi3Object()
