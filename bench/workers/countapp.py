"""Counts its requests and writes the count to $COUNT_DIR/<pid> at lifespan shutdown (bench/workers/spread.sh)."""
import os
COUNT = 0
async def app(scope, receive, send):
    global COUNT
    if scope["type"] == "lifespan":
        while True:
            m = await receive()
            if m["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            else:
                with open(os.path.join(os.environ["COUNT_DIR"], str(os.getpid())), "w") as f:
                    f.write(str(COUNT))
                await send({"type": "lifespan.shutdown.complete"})
                return
    COUNT += 1
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})
