"""bench/soak's app: the raw workloads of bench/apps/raw.py behind one path each."""
import raw

_ROUTES = {"/": raw.hello, "/10k": raw.get10k, "/echo": raw.echo, "/stream": raw.stream,
           "/sleep": raw.sleep, "/file": raw.pathsend}


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await _ROUTES.get(scope["path"], raw.hello)(scope, receive, send)
