"""Python functions called from Java (dev.apx.PythonFunction): finding them, and what a handle
to an object Java cannot convert says about its type."""
import asyncio
import functools
import importlib
import inspect
import sys


def resolve(spec, directory):
    """The function `module:qualified.name` names, and whether calling it makes a coroutine.

    `directory` (or None) goes first on sys.path, as an app's directory does."""
    module_name, _, qualname = spec.partition(":")
    if not module_name or not qualname:
        raise ValueError(f"a function is named module:function (e.g. pkg.tools:add), got {spec!r}")
    if directory is not None and directory not in sys.path:
        sys.path.insert(0, directory)
    target = importlib.import_module(module_name)
    for part in qualname.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"{spec} is a {type(target).__name__}, not a function")
    return target, _is_async(target)


def _is_async(target):
    if inspect.iscoroutinefunction(target):
        return True
    call = getattr(type(target), "__call__", None)  # an object whose __call__ is an async def
    return not inspect.isroutine(target) and call is not None and inspect.iscoroutinefunction(call)


def in_threads(function):
    """`function` run by asyncio.to_thread: each call a coroutine that waits for a worker thread."""
    return functools.partial(asyncio.to_thread, function)


def type_name(obj):
    """`int` for builtins, `package.module.Name` otherwise."""
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else module + "." + cls.__qualname__
