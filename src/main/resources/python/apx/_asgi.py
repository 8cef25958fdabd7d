"""The awaitables behind each ASGI receive() and send().

The Java side answers at once with a value (a message, or None), or with a pending asyncio future
it resolves later (more body arrived, the socket became writable), or with a str: the reason an
app's message was refused, raised here as RuntimeError in the app's own frame.
"""
from asyncio import isfuture


def awaitable(call):
    async def channel(*args):
        result = call(*args)
        if result.__class__ is str:
            raise RuntimeError(result)
        if isfuture(result):
            return await result
        return result
    return channel
