"""The Python half of each ASGI call: scope dicts, and the receive()/send() awaitables.

The Java side answers a receive()/send() at once with a value, or with a pending asyncio future it
resolves later (more body arrived, the socket became writable), or with a str: the reason an app's
message was refused, raised here as RuntimeError in the app's own frame.

HTTP requests take the fast path of http_runner: one Python call per request builds the scope and
the two closures, and the common messages reach Java as typed arguments, not as dicts to convert.
"""
from asyncio import isfuture


def awaitable(call):
    """An ASGI callable around a Java function (lifespan; not on the request path)."""
    async def channel(*args):
        result = call(*args)
        if result.__class__ is str:
            raise RuntimeError(result)
        if isfuture(result):
            return await result
        return result
    return channel


def http_runner(app, state, java_receive, java_start, java_body, java_send):
    """run(handle, ...scope values) -> the app's awaitable for one HTTP request.

    java_receive(handle) gives (body, more_body), or None once the client is gone or the response
    is complete; java_start/java_body take the fields of the two common messages; java_send takes
    any other message (or a malformed one) whole.
    """

    def run(handle, http_version, method, scheme, path, raw_path, query_string, root_path, headers, client, server, tls):
        async def receive():
            result = java_receive(handle)
            if isfuture(result):
                result = await result
            if result.__class__ is tuple:
                return {"type": "http.request", "body": result[0], "more_body": result[1]}
            if result is None:
                return {"type": "http.disconnect"}
            raise RuntimeError(result)

        async def send(message):
            if message.__class__ is dict:
                kind = message.get("type")
                if kind == "http.response.body":
                    result = java_body(handle, message.get("body", b""), message.get("more_body", False))
                elif kind == "http.response.start":
                    result = java_start(handle, message.get("status"), message.get("headers", ()),
                                        message.get("trailers", False))
                else:
                    result = java_send(handle, message)
            else:
                result = java_send(handle, message)
            if result is None:
                return
            if result.__class__ is str:
                raise RuntimeError(result)
            await result

        if headers.__class__ is bytes:  # b"name\0value\0..." (see Scope.java)
            fields = iter(headers[:-1].split(b"\0") if headers else ())
            headers = list(zip(fields, fields))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "http_version": http_version,
            "server": server,
            "client": client,
            "scheme": scheme,
            "method": method,
            "root_path": root_path,
            "path": path,
            "raw_path": raw_path,
            "query_string": query_string,
            "headers": headers,
            "state": state.copy(),
            "extensions": {"http.response.trailers": {}, "http.response.pathsend": {}},
        }
        if tls is not None:  # the ASGI TLS extension, on HTTPS connections only (values in Scope.TLS_KEYS' order)
            scope["extensions"]["tls"] = {
                "server_cert": tls[0],
                "client_cert_chain": tls[1],
                "client_cert_name": tls[2],
                "client_cert_error": tls[3],
                "tls_version": tls[4],
                "cipher_suite": tls[5],
            }
        return app(scope, receive, send)

    return run
