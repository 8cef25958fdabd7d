"""A Starlette app for RuntimesIT: each route says which CPython runtime of the process answered."""
import os
import sys
import threading
import zipimport
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute

served = 0  # a module-level global: one per runtime
lifespan_ran = False


def who():
    global served
    served += 1
    return {"pid": os.getpid(), "runtime": id(sys.modules), "served": served, "lifespan": lifespan_ran,
            "thread": threading.current_thread().name}


async def http_who(request):
    return JSONResponse(who())


async def jar_directory(request):
    """What this runtime's zipimport caches of apx.jar's directory: every entry, and those outside python/."""
    entries = [name for archive, files in zipimport._zip_directory_cache.items() if archive.endswith("apx.jar") for name in files]
    return JSONResponse({"runtime": id(sys.modules), "entries": len(entries),
                         "outside_python": sum(not name.startswith("python/") for name in entries)})


async def ws_who(websocket):
    await websocket.accept()
    message = await websocket.receive_text()
    await websocket.send_json({**who(), "echo": message})
    await websocket.close()


@asynccontextmanager
async def lifespan(app):
    global lifespan_ran
    lifespan_ran = True
    yield


app = Starlette(routes=[Route("/who", http_who), Route("/jar-directory", jar_directory), WebSocketRoute("/ws", ws_who)], lifespan=lifespan)
