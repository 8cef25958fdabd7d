"""An app whose import claims something process-wide, as a C extension that cannot be loaded twice in one
process would: it imports in the first runtime of --interpreters and fails in the next (which starts with
the environment the first left)."""
import os

if os.environ.get("APX_TEST_ONCE_CLAIMED"):
    raise ImportError("once_per_process_app is already loaded in this process")
os.environ["APX_TEST_ONCE_CLAIMED"] = "1"


async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"once"})
