"""apx: an ASGI and WSGI server whose network layer is Java (Netty) and which runs the app in an embedded CPython.

    apx main:app --port 8000          # the console script (or python -m apx), Uvicorn's flags
    apx.run("main:app", port=8000)    # from Python, uvicorn.run's keywords

This package is the launcher: it finds a Java >= 25 and runs the apx.jar shipped beside it with
this interpreter embedded. The server's own Python helpers live in the jar as the package _apx.
"""

from apx._run import run

__all__ = ["run"]
