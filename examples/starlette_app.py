"""A Starlette app: `bin/apx --python .venv/py3.11/bin/python --app-dir examples starlette_app:app`."""
import contextlib

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route


@contextlib.asynccontextmanager
async def lifespan(app):
    yield {"started": True}


async def homepage(request: Request):
    return PlainTextResponse("Hello from Starlette")


async def user(request: Request):
    return JSONResponse({"user": request.path_params["name"], "started": request.state.started})


async def echo(request: Request):
    body = await request.body()
    return JSONResponse({"length": len(body), "text": body.decode()})


app = Starlette(routes=[
    Route("/", homepage),
    Route("/users/{name}", user),
    Route("/echo", echo, methods=["POST"]),
], lifespan=lifespan)
