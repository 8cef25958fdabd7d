"""examples/fastapi_app.py as a Java service hosts it (examples/java-host): the same app, with a
lifespan and a few routes that show what the host hands over (path and root_path, an upload, a
long stream). Events go to $JAVA_HOST_LOG, one line each, so a test can tell their order."""
import asyncio
import hashlib
import os
import sys
from contextlib import asynccontextmanager

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))  # examples/

from fastapi import Request, WebSocket, WebSocketDisconnect  # noqa: E402
from fastapi.responses import StreamingResponse  # noqa: E402

from fastapi_app import app  # noqa: E402


def log(event):
    path = os.environ.get("JAVA_HOST_LOG")
    if path:
        with open(path, "a") as f:
            f.write(event + "\n")


@asynccontextmanager
async def lifespan(_app):
    log("lifespan startup")
    yield
    log("lifespan shutdown")


app.router.lifespan_context = lifespan


@app.get("/echo/{rest:path}")
async def echo(rest: str, request: Request):
    scope = request.scope
    return {"path": scope["path"], "root_path": scope["root_path"], "rest": rest, "query": dict(request.query_params),
            "headers": {k: v for k, v in request.headers.items() if k.startswith("x-")},
            "client": scope["client"][0] if scope["client"] else None, "url": str(request.url)}


@app.websocket("/ws")
async def ws(websocket: WebSocket):
    """Echoes text and bytes (through the container's Jakarta WebSocket); closes with 4000 on 'bye'."""
    await websocket.accept()
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if message.get("text") == "bye":
                await websocket.close(4000, "bye")
                return
            if message.get("text") is not None:
                await websocket.send_text("echo: " + message["text"] + " at " + websocket.scope["root_path"])
            else:
                await websocket.send_bytes(message["bytes"][::-1])
    except WebSocketDisconnect:
        return


@app.post("/upload")
async def upload(request: Request):
    digest = hashlib.sha256()
    length = 0
    async for chunk in request.stream():
        digest.update(chunk)
        length += len(chunk)
    return {"length": length, "sha256": digest.hexdigest()}


@app.get("/ticks")
async def ticks(n: int = 10, delay: float = 0.0):
    async def lines():
        try:
            for i in range(n):
                yield f"tick {i}\n"
                await asyncio.sleep(delay)
        except (asyncio.CancelledError, GeneratorExit):
            log("ticks stopped early")
            raise
    return StreamingResponse(lines(), media_type="text/plain")
