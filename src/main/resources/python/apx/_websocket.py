"""The awaitables behind a WebSocket's receive() and send().

As for HTTP (apx._asgi), the Java side answers with a value, a pending future it resolves later,
or a str (the reason a message was refused, raised as RuntimeError). One more answer for send():
False means the client is gone, raised as ClientDisconnected, the OSError subclass Uvicorn raises,
so frameworks that catch OSError (Starlette turns it into WebSocketDisconnect(1006)) do the same.
"""
from asyncio import isfuture


class ClientDisconnected(OSError):
    """send() on a WebSocket whose client has gone away."""


def awaitable(call):
    async def channel(*args):
        result = call(*args)
        if isfuture(result):
            result = await result
        if result is False:
            raise ClientDisconnected()
        if result.__class__ is str:
            raise RuntimeError(result)
        return result
    return channel
