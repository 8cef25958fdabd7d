"""Starlette and FastAPI WebSocket endpoints (3.11 only: their wheels exist there) for WebSocketTest.

What the endpoints observe is kept in `seen` and read back at /seen?ID, as in ws_apps.
"""
import json

from fastapi import FastAPI, WebSocket as FastAPIWebSocket, WebSocketDisconnect as FastAPIDisconnect
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

seen = {}


async def echo(websocket: WebSocket):
    await websocket.accept(subprotocol="chat" if "chat" in websocket.scope["subprotocols"] else None)
    try:
        while True:
            await websocket.send_text("echo: " + await websocket.receive_text())
    except WebSocketDisconnect as gone:
        seen[websocket.url.query] = {"code": gone.code}


async def json_echo(websocket: WebSocket):
    await websocket.accept()
    data = await websocket.receive_json()
    await websocket.send_json({"got": data})
    await websocket.close(code=4002, reason="done")


async def send_until_gone(websocket: WebSocket):
    """Starlette turns the server's OSError on send into WebSocketDisconnect(1006)."""
    await websocket.accept()
    try:
        for _ in range(100_000):
            await websocket.send_bytes(b"x" * 65536)
    except WebSocketDisconnect as gone:
        seen[websocket.url.query] = {"code": gone.code}


async def show(request):
    return JSONResponse(seen.get(request.url.query))


api = FastAPI()


@api.websocket("/items/{item_id}")
async def item_feed(websocket: FastAPIWebSocket, item_id: int, q: str = "none"):
    await websocket.accept()
    try:
        while True:
            text = await websocket.receive_text()
            await websocket.send_json({"item_id": item_id, "q": q, "text": text})
    except FastAPIDisconnect as gone:
        seen[f"fastapi{item_id}"] = {"code": gone.code}


app = Starlette(routes=[
    WebSocketRoute("/ws/echo", echo),
    WebSocketRoute("/ws/json", json_echo),
    WebSocketRoute("/ws/send-until-gone", send_until_gone),
    Route("/seen", show),
    Mount("/fastapi", app=api),
])
