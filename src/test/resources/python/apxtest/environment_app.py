"""For RuntimesIT: each runtime of --interpreters answers with its id and the environment its import
found: what the test's process set, and what another runtime's import set (it should not see that)."""
import json
import os
import sys

from apxtest import lifespan

_found = {
    "runtime": str(id(sys.modules)),
    "from_parent": os.environ.get("APX_TEST_FROM_PARENT"),
    "from_env_file": os.environ.get("APX_TEST_FROM_ENV_FILE"),
    "set_by_an_import": os.environ.get("APX_TEST_SET_BY_IMPORT"),
}
os.environ["APX_TEST_SET_BY_IMPORT"] = _found["runtime"]


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        return await lifespan.complete(receive, send)
    body = json.dumps(_found).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
