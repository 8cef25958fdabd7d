"""A FastAPI app: `bin/apx --python .venv/py3.11/bin/python --app-dir examples fastapi_app:app`.

Pydantic models, a path parameter, a POST body, a streaming response and a file response.
"""
import os

from fastapi import FastAPI
from fastapi.responses import FileResponse, StreamingResponse
from pydantic import BaseModel

app = FastAPI(title="apx example")


class Item(BaseModel):
    name: str
    price: float
    tags: list[str] = []


@app.get("/")
async def root():
    return {"message": "Hello from FastAPI"}


@app.get("/items/{item_id}")
async def read_item(item_id: int, q: str | None = None):
    return {"item_id": item_id, "q": q}


@app.post("/items")
async def create_item(item: Item):
    return {"name": item.name, "price_with_tax": round(item.price * 1.2, 2), "tags": item.tags}


@app.get("/stream")
async def stream():
    async def numbers():
        for i in range(10):
            yield f"line {i}\n"
    return StreamingResponse(numbers(), media_type="text/plain")


@app.get("/file")
async def file():
    return FileResponse(os.path.join(os.path.dirname(__file__), "hello.py"), media_type="text/x-python")
