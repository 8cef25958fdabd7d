"""The FastAPI app examples/spring-boot serves at /py/*. Lifespan events and finished slow requests
go to $APX_BOOT_LOG, one line each, so a test can tell their order."""
import asyncio
import os
from contextlib import asynccontextmanager
from urllib.parse import parse_qs

from fastapi import FastAPI, Request
from pydantic import BaseModel


def log(event):
    path = os.environ.get("APX_BOOT_LOG")
    if path:
        with open(path, "a") as f:
            f.write(event + "\n")


@asynccontextmanager
async def lifespan(_app):
    log("lifespan startup")
    yield
    log("lifespan shutdown")


app = FastAPI(title="apx Spring Boot example", lifespan=lifespan)


class Item(BaseModel):
    name: str
    price: float
    tags: list[str] = []


@app.get("/items/{item_id}")
async def read_item(item_id: int, q: str | None = None):
    return {"item_id": item_id, "q": q}


@app.post("/items")
async def create_item(item: Item):
    return {"name": item.name, "price_with_tax": round(item.price * 1.2, 2), "tags": item.tags}


@app.api_route("/form", methods=["POST", "PUT", "PATCH", "DELETE"])
async def form(request: Request):
    body = (await request.body()).decode()
    return {"method": request.method, "content_type": request.headers.get("content-type"), "body": body,
            "fields": {k: v[0] for k, v in parse_qs(body).items()}}


@app.get("/slow")
async def slow(seconds: float = 1.0):
    log("slow request started")
    await asyncio.sleep(seconds)
    log("slow request done")
    return {"slept": seconds}
