"""Exceptions crossing the Java/Python boundary."""
import traceback


class JavaError(RuntimeError):
    """A Java exception raised inside a Java callable that Python called.

    The message is the Java exception's class name and message.
    """


def format_exception(exc):
    """The text Python would print for `exc`, traceback included."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def type_name(exc):
    """`ValueError` for builtins, `package.module.Name` otherwise."""
    cls = type(exc)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else module + "." + cls.__qualname__
