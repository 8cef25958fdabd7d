"""Work for RuntimesTest: run in each CPython runtime of one JVM, to show they are separate and parallel."""
import asyncio
import importlib
import json
import sys


def spin(n):
    """CPU-bound and holding the GIL all along."""
    total = 0
    for i in range(n):
        total += i * i
    return total


def hold_gil_until(release_address, holding_address, seconds):
    """Runs bytecode without handing this runtime's GIL over until the int at release_address turns
    non-zero: the switch interval (after which a waiting thread asks for the GIL) is set beyond the
    wait, and the loop calls nothing that releases the GIL. True if released within `seconds`."""
    import ctypes
    import time

    release = ctypes.c_int.from_address(release_address)
    before = sys.getswitchinterval()
    sys.setswitchinterval(seconds * 2)
    try:
        ctypes.c_int.from_address(holding_address).value = 1
        deadline = time.monotonic() + seconds
        while release.value == 0:
            if time.monotonic() > deadline:
                return False
        return True
    finally:
        sys.setswitchinterval(before)


def mark(value):
    """Sets a module-level global of a module every runtime has imported."""
    json.apx_runtime_mark = value
    return value


def marked():
    return getattr(json, "apx_runtime_mark", None)


def modules_id():
    return id(sys.modules)


def asyncio_round(tasks):
    async def one(i):
        await asyncio.sleep(0.001)
        return i

    async def main():
        loop = asyncio.get_running_loop()
        in_executor = await loop.run_in_executor(None, spin, 1000)  # a thread this runtime's libc made
        results = await asyncio.gather(*(one(i) for i in range(tasks)))
        return sum(results) + (1 if in_executor > 0 else 0)

    return asyncio.run(main())


def compiled():
    """The tokenizer, which reads the thread's ctype tables (the first thing to crash without them)."""
    return eval(compile("sum([1, 2, 3]) + len('abc'.upper())", "<runtimes>", "eval"))


EXTENSIONS = ["_socket", "_asyncio", "_ssl", "_json", "select", "_struct", "_decimal", "pydantic_core", "uvloop"]


def extensions():
    """Imports the C extensions this venv has; returns their names."""
    loaded = []
    for name in EXTENSIONS:
        # not find_spec first: while another thread of this runtime imports a single-phase extension,
        # sys.modules already holds it without __spec__, and find_spec raises ValueError (CPython, not apx)
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as missing:
            if missing.name != name:
                raise
            continue
        loaded.append(name)
    return loaded


def pydantic_round():
    import pydantic

    class Item(pydantic.BaseModel):
        name: str
        price: float

    return Item.model_validate({"name": "x", "price": "2.5"}).model_dump_json()


def uvloop_round():
    import uvloop

    async def main():
        await asyncio.sleep(0.001)
        return type(asyncio.get_running_loop()).__module__

    return uvloop.run(main())
