"""Values built in Python, for conversion and identity checks."""
import collections
import enum


class Color(enum.IntEnum):
    RED = 1


class MyStr(str):
    pass


def type_name(value):
    return type(value).__name__


def echo(value):
    return value


def samples():
    return {
        "int_enum": Color.RED,
        "str_subclass": MyStr("sub"),
        "ordered": collections.OrderedDict([("b", 1), ("a", 2)]),
        "big": 2 ** 100,
        "neg_big": -(2 ** 100),
        "float": 1.5,
        "nested": {"list": [1, (2, 3), {"x": None}], "bytes": b"\x00\xff"},
    }


def pack(*args):
    return args


def add(a, b=0, *, scale=1):
    return (a + b) * scale


def trivial():
    return None


def live_objects():
    import gc
    import sys
    gc.collect()
    return [len(gc.get_objects()), sys.getallocatedblocks()]


def start_tracing():
    import tracemalloc
    tracemalloc.start()


def stop_tracing():
    """Bytes Python allocated since start_tracing and still holds, after a collection."""
    import gc
    import tracemalloc
    gc.collect()
    current = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return current


class Box:
    """Any object that can be weakly referenced."""
