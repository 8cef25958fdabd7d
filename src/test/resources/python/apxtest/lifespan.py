"""The lifespan half of a test app that needs nothing done at startup or shutdown: each message completed."""


async def complete(receive, send):
    while True:
        message = await receive()
        await send({"type": message["type"] + ".complete"})
        if message["type"] == "lifespan.shutdown":
            return
