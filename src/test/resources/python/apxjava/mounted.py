"""A FastAPI app that reports how it was mounted: the scope's path and root_path, and the URLs it makes."""
from fastapi import FastAPI, Request

app = FastAPI()


@app.get("/x")
async def x(request: Request):
    return {"path": request.scope["path"], "root_path": request.scope["root_path"],
            "url": str(request.url), "url_for": str(request.url_for("x"))}
