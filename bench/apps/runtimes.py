"""frameworks:fastapi plus GET /runtime, which tells apx's runtimes (or Uvicorn's workers) apart.

bench/interpreters serves this app on both servers: /items/42?q=bench is frameworks.py's route,
/runtime answers which CPython runtime (sys.modules is one dict per runtime) and which process.
"""
import os
import sys

from frameworks import fastapi as app


@app.get("/runtime")
async def runtime() -> dict:
    return {"runtime": id(sys.modules), "pid": os.getpid()}
