"""Exceptions raised in Python and Java exceptions seen from Python."""


class AppError(Exception):
    pass


def fail_value(message):
    raise ValueError(message)


def fail_nested():
    def inner_function_name():
        raise AppError("deep trouble")
    inner_function_name()


def call_and_catch(function, *args):
    """Calls a (Java) function and returns what Python saw: the result or the exception."""
    try:
        return ["ok", function(*args)]
    except Exception as exc:
        return ["raised", type(exc).__module__ + "." + type(exc).__qualname__, str(exc)]


def call_through(function, *args):
    """Calls a (Java) function and lets anything it raises propagate."""
    return function(*args)
