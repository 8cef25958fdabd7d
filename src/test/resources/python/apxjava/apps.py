"""Apps for the Java API's tests (dev.apx.*Test): what they report lets a test check where and how
apx ran them."""
import asyncio
import json
import os
import threading


def _log(line):
    path = os.environ.get("APX_JAVA_TEST_LOG")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


_big_sent = [0]
_loop_thread = []  # the thread lifespan startup ran on: the event loop's


async def echo(scope, receive, send):
    """Echoes the scope, the body and the thread that ran it; records lifespan events to $APX_JAVA_TEST_LOG."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                _loop_thread.append(threading.get_ident())
                _log("startup")
                await send({"type": "lifespan.startup.complete"})
            else:
                _log("shutdown")
                await send({"type": "lifespan.shutdown.complete"})
                return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    path = scope["path"][len(scope["root_path"]):]
    if path.startswith("/big/"):  # int(n) chunks of 64 KiB, as fast as the client takes them
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/octet-stream")]})
        for i in range(int(path[len("/big/"):])):
            await send({"type": "http.response.body", "body": bytes([i % 251]) * 65536, "more_body": True})
            _big_sent[0] = i + 1
        await send({"type": "http.response.body", "body": b""})
        return
    if path.startswith("/whole/"):  # int(n) MiB in one message, then at once the empty last one
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/octet-stream")]})
        await send({"type": "http.response.body", "body": bytes(range(256)) * 4096 * int(path[len("/whole/"):]), "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        return
    if path == "/big-sent":  # how many chunks the last /big has sent so far
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": str(_big_sent[0]).encode()})
        return
    if path == "/forever":  # a line every 10 ms until the client leaves
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        try:
            while True:
                await send({"type": "http.response.body", "body": b"tick\n" * 100, "more_body": True})
                await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            _log("forever cancelled")
            raise
    if path.startswith("/sleep/"):
        await asyncio.sleep(float(path[len("/sleep/"):]))
    if path == "/fail":
        raise RuntimeError("the app failed before it answered")
    report = {
        "method": scope["method"],
        "path": scope["path"],
        "raw_path": scope["raw_path"].decode("latin-1"),
        "root_path": scope["root_path"],
        "query_string": scope["query_string"].decode("latin-1"),
        "headers": [[n.decode("latin-1"), v.decode("latin-1")] for n, v in scope["headers"]],
        "scheme": scope["scheme"],
        "client": scope["client"],
        "server": scope["server"],
        "http_version": scope["http_version"],
        "body_length": len(body),
        "body_sum": sum(body) % 1000003,
        "thread": threading.current_thread().name,
        "on_loop_thread": threading.get_ident() in _loop_thread,
        "tls": scope.get("extensions", {}).get("tls") is not None,
    }
    tls = scope.get("extensions", {}).get("tls")
    if tls:
        report["tls_client_cert_name"] = tls["client_cert_name"]
        report["tls_client_chain"] = len(tls["client_cert_chain"])
        report["tls_version"] = tls["tls_version"]
        report["tls_cipher_suite"] = tls["cipher_suite"]
    status = int(dict(scope["headers"]).get(b"x-status", b"200"))
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"x-one", b"1"), (b"set-cookie", b"a=1"), (b"set-cookie", b"b=2")]})
    await send({"type": "http.response.body", "body": json.dumps(report).encode()})


def wsgi_echo(environ, start_response):
    """The WSGI environ's CGI keys and the body."""
    body = environ["wsgi.input"].read()
    report = {k: environ[k] for k in ("REQUEST_METHOD", "SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "SERVER_PROTOCOL",
                                      "wsgi.url_scheme", "REMOTE_ADDR", "SERVER_NAME", "SERVER_PORT") if k in environ}
    report["body_length"] = len(body)
    report["thread"] = threading.current_thread().name
    report["headers"] = {k: v for k, v in environ.items() if k.startswith("HTTP_")}
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps(report).encode()]


async def which_python(scope, receive, send):
    """Answers the Python version and sys.modules' identity: which runtime of the JVM served it."""
    if scope["type"] != "http":
        return
    import sys
    body = json.dumps({"version": "%d.%d.%d" % sys.version_info[:3], "runtime": id(sys.modules)}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


async def ws_mounted(scope, receive, send):
    """apxtest.ws_apps, routed on the path below root_path (a servlet's mount point); a websocket scope goes on as it came."""
    from apxtest import ws_apps
    if scope["type"] == "lifespan":
        await ws_apps.app(scope, receive, send)
        return
    route = scope["path"][len(scope["root_path"]):]
    if scope["type"] == "http":
        await ws_apps.http(dict(scope, path=route), receive, send)
        return
    await ws_apps.ROUTES[route](scope, receive, send)
