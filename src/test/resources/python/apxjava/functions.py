"""Functions for PythonFunctionTest: what they return and record lets a test check what crossed
from Java and back, where each call ran, and what reached Python when a call was given up."""
import asyncio
import contextvars
import datetime
import threading
import time
import weakref

events = []         # what the functions recorded, for events_since()
released = []       # Token labels whose object was freed (weakref callbacks)
_current = contextvars.ContextVar("current", default="unset")


def add(a, b):
    return a + b


async def add_async(a, b):
    return a + b


async def add_later(a, b, delay):
    await asyncio.sleep(delay)
    return a + b


def echo(value):
    return value


def describe(value):
    """The argument's type and repr, as Python sees it."""
    return f"{type(value).__name__}:{value!r}"


def keywords(a, b=2, *, c=3):
    return [a, b, c]


def big(bits):
    return 2 ** bits + 1


def every_type():
    return {
        "none": None, "true": True, "int": 42, "negative": -7, "big": 2 ** 70, "float": 1.5,
        "str": "café ☕", "bytes": b"\x00\xff", "list": [1, [2, (3, "x")]], "tuple": (1, "a"),
        "dict": {"k": {"nested": [None, False]}}, 7: "int key", (1, 2): "tuple key",
        "set": {1}, "date": datetime.date(2024, 5, 6),
    }


class Token:
    """An object with no Java counterpart; its freeing is recorded by label."""

    def __init__(self, label):
        self.label = label


def make_token(label):
    token = Token(label)
    weakref.finalize(token, released.append, label)
    return token


def token_label(token):
    return token.label


def released_labels():
    return list(released)


def holders(label):
    """How many tokens with this label are alive (found through the collector)."""
    import gc
    return sum(1 for o in gc.get_objects() if isinstance(o, Token) and o.label == label)


def raises(message):
    _inner(message)


def _inner(message):
    raise ValueError(message)


class AppError(Exception):
    pass


async def raises_async(message):
    await asyncio.sleep(0)
    raise AppError(message)


def where():
    return threading.get_ident()


async def where_async():
    await asyncio.sleep(0)
    return [threading.get_ident(), asyncio.current_task() is not None]


def sets_context(value):
    before = _current.get()
    _current.set(value)
    return before


async def sleeps(label, seconds):
    """Records `label started`, then `label cancelled` if its task is cancelled during the sleep."""
    events.append(label + " started")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        events.append(label + " cancelled")
        raise
    events.append(label + " finished")
    return label


def blocks(label, seconds):
    events.append(label + " started")
    time.sleep(seconds)
    events.append(label + " finished")
    return label


def recorded(label):
    return [e for e in events if e.startswith(label + " ")]


def returns_coroutine(a, b):
    return add_async(a, b)


class Greeter:
    def __init__(self, greeting):
        self.greeting = greeting

    def greet(self, name):
        return f"{self.greeting}, {name}"


def greeting(greeter, name):
    return greeter.greet(name)


not_callable = 42
