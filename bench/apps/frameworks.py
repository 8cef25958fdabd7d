"""Starlette and FastAPI apps for bench/run."""
from fastapi import FastAPI
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Route

from raw import _FILE


async def starlette_json(request):
    return JSONResponse({"message": "Hello, world!", "items": [1, 2, 3]})


async def starlette_file(request):
    # FileResponse uses http.response.pathsend when the server offers it (apx), else reads the
    # file in chunks on a thread (Uvicorn).
    return FileResponse(_FILE, media_type="application/octet-stream")


starlette = Starlette(routes=[Route("/json", starlette_json), Route("/file", starlette_file)])


class Item(BaseModel):
    id: int
    name: str
    price: float
    tags: list[str]


fastapi = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)


@fastapi.get("/items/{item_id}", response_model=Item)
async def read_item(item_id: int, q: str = "") -> Item:
    return Item(id=item_id, name=q or "widget", price=9.99, tags=["a", "b"])


class OrderLine(BaseModel):
    sku: str
    quantity: int
    price: float


class Order(BaseModel):
    id: int
    customer: str
    email: str
    lines: list[OrderLine]
    note: str | None = None
    paid: bool = False


@fastapi.post("/orders", response_model=Order)
async def create_order(order: Order) -> Order:
    """fastapi-post: the body (bench/wrk/order.json) is validated into the model and sent back."""
    return order
