"""The Starlette and FastAPI examples over HTTPS with httpx: h2 (http2=True, ALPN) and HTTP/1.1.

Usage: python httpx_h2.py BASE_URL CA_FILE {starlette,fastapi} {2,1.1} EXAMPLES_DIR
Prints one "ok: ..." line per check; the first failed check raises (exit 1).
"""
import asyncio
import pathlib
import ssl
import sys

import httpx

BASE, CA, APP, VERSION, EXAMPLES = sys.argv[1:6]
EXPECTED = "HTTP/2" if VERSION == "2" else "HTTP/1.1"


def check(name, condition, detail=""):
    if not condition:
        raise AssertionError(f"{name}: {detail}")
    print("ok:", name)


def starlette(client):
    r = client.get("/")
    check("starlette root over " + r.http_version, r.text == "Hello from Starlette" and r.http_version == EXPECTED, r)
    check("starlette path param and lifespan state", client.get("/users/ada").json() == {"user": "ada", "started": True})
    text = "héllo, wörld " * 5000
    r = client.post("/echo", content=text.encode())
    check("starlette 80 kB body", r.json() == {"length": len(text.encode()), "text": text}, r.text[:100])
    r = client.post("/echo", content=(part.encode() for part in ["one ", "two ", "three"]))
    check("starlette streamed upload", r.json() == {"length": 13, "text": "one two three"}, r.text)
    r = client.head("/")
    check("starlette HEAD", r.content == b"" and r.headers["content-length"] == "20", r.headers)
    check("starlette 404", client.get("/missing").status_code == 404)


def fastapi(client):
    r = client.get("/")
    check("fastapi root over " + r.http_version, r.json() == {"message": "Hello from FastAPI"} and r.http_version == EXPECTED, r)
    check("fastapi path and query", client.get("/items/42", params={"q": "a b&c"}).json() == {"item_id": 42, "q": "a b&c"})
    r = client.post("/items", json={"name": "pen", "price": 2.5, "tags": ["office"]})
    check("fastapi pydantic body", r.json() == {"name": "pen", "price_with_tax": 3.0, "tags": ["office"]}, r.text)
    with client.stream("GET", "/stream") as r:
        lines = list(r.iter_lines())
        check("fastapi streaming response", lines == [f"line {i}" for i in range(10)], lines)
    r = client.get("/file")
    expected = (pathlib.Path(EXAMPLES) / "hello.py").read_bytes()
    check("fastapi file response (pathsend)", r.content == expected, r.headers)
    asyncio.run(concurrent())


async def concurrent():
    async with httpx.AsyncClient(base_url=BASE, verify=context(), http2=VERSION == "2", timeout=60) as client:
        responses = await asyncio.gather(*(client.get(f"/items/{i}") for i in range(20)))
        check("fastapi 20 concurrent requests", [r.json()["item_id"] for r in responses] == list(range(20))
              and {r.http_version for r in responses} == {EXPECTED}, responses)


def context():
    return ssl.create_default_context(cafile=CA)


with httpx.Client(base_url=BASE, verify=context(), http2=VERSION == "2", timeout=60) as http:
    {"starlette": starlette, "fastapi": fastapi}[APP](http)
