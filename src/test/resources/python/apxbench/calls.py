"""The trivial functions PythonFunctionBench calls from Java (bench/polyglot calls the same ones
through GraalPy and Jep)."""


def add(a, b):
    return a + b


async def add_async(a, b):
    return a + b
