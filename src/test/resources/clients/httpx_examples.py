"""Checks one examples/ app served at BASE_URL with httpx, as a user's client would call it.

Usage: python httpx_examples.py BASE_URL {hello,starlette,fastapi,django} EXAMPLES_DIR
Prints one "ok: ..." line per check and exits 0; the first failed check raises (exit 1).
"""
import asyncio
import pathlib
import sys

import httpx


def check(name, condition, detail=""):
    if not condition:
        raise AssertionError(f"{name}: {detail}")
    print("ok:", name)


def hello(client, examples):
    r = client.get("/")
    check("hello body", r.status_code == 200 and r.text == "Hello, world!", r)
    check("hello is chunked (no content-length from the app)", r.headers.get("transfer-encoding") == "chunked", r.headers)
    check("server and date headers", r.headers["server"] == "apx" and r.headers["date"].endswith(" GMT"), r.headers)


def starlette(client, examples):
    check("starlette root", client.get("/").text == "Hello from Starlette")
    check("starlette path param and lifespan state", client.get("/users/ada").json() == {"user": "ada", "started": True})
    text = "héllo, wörld " * 5000
    r = client.post("/echo", content=text.encode())
    check("starlette 80 kB body", r.json() == {"length": len(text.encode()), "text": text}, r.text[:100])
    r = client.post("/echo", content=(part.encode() for part in ["one ", "two ", "three"]))  # a generator: chunked upload
    check("starlette chunked upload", r.json() == {"length": 13, "text": "one two three"}, r.text)
    r = client.head("/")
    check("starlette HEAD has the length, no body", r.content == b"" and r.headers["content-length"] == "20", r.headers)
    check("starlette 404", client.get("/missing").status_code == 404)
    check("starlette 405", client.get("/echo").status_code == 405)


def fastapi(client, examples):
    check("fastapi root", client.get("/").json() == {"message": "Hello from FastAPI"})
    check("fastapi path and query", client.get("/items/42", params={"q": "a b&c"}).json() == {"item_id": 42, "q": "a b&c"})
    r = client.get("/items/nope")
    check("fastapi validation error", r.status_code == 422 and r.json()["detail"][0]["loc"] == ["path", "item_id"], r.text)
    r = client.post("/items", json={"name": "pen", "price": 2.5, "tags": ["office"]})
    check("fastapi pydantic body", r.json() == {"name": "pen", "price_with_tax": 3.0, "tags": ["office"]}, r.text)
    check("fastapi invalid body", client.post("/items", json={"name": "pen"}).status_code == 422)
    with client.stream("GET", "/stream") as r:
        lines = list(r.iter_lines())
        check("fastapi streaming response", r.headers["transfer-encoding"] == "chunked"
              and lines == [f"line {i}" for i in range(10)], lines)
    r = client.get("/file")
    expected = (pathlib.Path(examples) / "hello.py").read_bytes()
    check("fastapi file response", r.content == expected and r.headers["content-type"].startswith("text/x-python")
          and r.headers["content-length"] == str(len(expected)), r.headers)
    check("fastapi docs", "swagger" in client.get("/docs").text.lower())
    asyncio.run(concurrent(client.base_url))


async def concurrent(base_url):
    """50 requests in flight at once over 10 connections: each answer belongs to its request."""
    limits = httpx.Limits(max_connections=10)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30) as client:
        answers = await asyncio.gather(*(client.get(f"/items/{i}", params={"q": str(i)}) for i in range(50)))
    check("fastapi 50 concurrent requests", [a.json() for a in answers] == [{"item_id": i, "q": str(i)} for i in range(50)])


def django(client, examples):
    check("django root", client.get("/").text == "Hello from Django")
    check("django path and query", client.get("/hello/ada", params={"q": "1"}).json()
          == {"hello": "ada", "method": "GET", "query": "1"})
    check("django POST body", client.post("/echo", json={"a": [1, 2]}).json() == {"received": {"a": [1, 2]}})
    with client.stream("GET", "/stream") as r:
        check("django streaming", "".join(r.iter_text()) == "part 0\npart 1\npart 2\n")
    check("django 404", client.get("/missing").status_code == 404)


def main():
    base_url, app, examples = sys.argv[1:4]
    # One client: every check after the first reuses its keep-alive connection.
    with httpx.Client(base_url=base_url, timeout=30) as client:
        globals()[app](client, examples)


if __name__ == "__main__":
    main()
