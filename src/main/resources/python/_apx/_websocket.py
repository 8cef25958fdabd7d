"""The awaitables behind a WebSocket's receive() and send().

As for HTTP (_apx._asgi), the Java side answers with a value, a pending future it resolves later,
or a str (the reason a message was refused, raised as RuntimeError). One more answer for send():
False means the client is gone, raised as ClientDisconnected, the OSError subclass Uvicorn raises,
so frameworks that catch OSError (Starlette turns it into WebSocketDisconnect(1006)) do the same.
"""
from asyncio import isfuture


class ClientDisconnected(OSError):
    """send() on a WebSocket whose client has gone away."""


def channels(java_receive, java_send, java_send_data):
    """receive() and send() for one WebSocket.

    A data message arrives from Java as a 1-tuple (str or bytes) and becomes its dict here; a
    websocket.send reaches Java as its two fields; any other message goes whole to java_send.
    """

    async def receive():
        result = java_receive()
        if isfuture(result):
            result = await result
        if result.__class__ is tuple:
            payload = result[0]
            if payload.__class__ is str:
                return {"type": "websocket.receive", "text": payload}
            return {"type": "websocket.receive", "bytes": payload}
        if result.__class__ is str:
            raise RuntimeError(result)
        return result

    async def send(message):
        if message.__class__ is dict and message.get("type") == "websocket.send":
            result = java_send_data(message.get("bytes"), message.get("text"))
        else:
            result = java_send(message)
        if isfuture(result):
            result = await result
        if result is False:
            raise ClientDisconnected()
        if result.__class__ is str:
            raise RuntimeError(result)

    return receive, send
