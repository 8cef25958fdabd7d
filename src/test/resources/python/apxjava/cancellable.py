"""An ASGI app whose handlers record whether they were cancelled, for PythonAppCancellationTest
(which reads `recorded` through a PythonFunction of the same runtime)."""
import asyncio

events = []


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    label = scope["path"].strip("/")
    events.append(label + " started")
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        events.append(label + " cancelled")
        raise
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"slept"})


def recorded(label):
    return [e for e in events if e.startswith(label + " ")]
