"""--interface: which protocol an app speaks, and the ASGI 2 adapter.

auto decides as Uvicorn does: an ASGI 3 app is a coroutine function (or a class whose instances are
awaitable, or an object whose __call__ is a coroutine function); anything else is taken for ASGI 2.
auto never picks WSGI: a WSGI app needs --interface wsgi, as with Uvicorn.
"""
import inspect


def detect(app):
    if inspect.isclass(app):
        asgi3 = hasattr(app, "__await__")
    elif inspect.isfunction(app):
        asgi3 = inspect.iscoroutinefunction(app)
    else:
        asgi3 = inspect.iscoroutinefunction(getattr(app, "__call__", None))
    return "asgi3" if asgi3 else "asgi2"


def asgi2(app):
    """An ASGI 3 callable around an ASGI 2 app: app(scope) gives the instance; await instance(receive, send)."""

    async def asgi3(scope, receive, send):
        instance = app(scope)
        await instance(receive, send)

    asgi3.__qualname__ = "asgi2(%s)" % (getattr(app, "__qualname__", None) or type(app).__name__)
    return asgi3
