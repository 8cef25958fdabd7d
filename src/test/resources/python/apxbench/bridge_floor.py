"""The floor for the bridge benchmark: the same trivial app driven by plain Python, in-process."""
import asyncio
import time

_START = {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]}
_BODY = {"type": "http.response.body", "body": b"Hello, world!"}


async def app(scope, receive, send):
    await send(_START)
    await send(_BODY)


async def sleepy(scope, receive, send):
    await asyncio.sleep(0.001)
    await send(_START)
    await send(_BODY)


def drive_plain(count):
    """Requests/s of `app` stepped with coro.send() in a Python loop (scope built per request)."""
    loop = asyncio.new_event_loop()
    done = loop.create_future()
    done.set_result(None)

    def send(message):
        return done

    def receive():
        return done

    start = time.perf_counter()
    for i in range(count):
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                 "path": "/", "raw_path": b"/", "query_string": b"", "headers": [], "client": ("127.0.0.1", i),
                 "server": ("127.0.0.1", 8000), "scheme": "http", "root_path": ""}
        coro = app(scope, receive, send)
        try:
            coro.send(None)
        except StopIteration:
            pass
    elapsed = time.perf_counter() - start
    loop.close()
    return count / elapsed


def drive_tasks(count):
    """Requests/s of `app` run the way an asyncio server runs it: one Task per request on a loop."""
    loop = asyncio.new_event_loop()
    done = loop.create_future()
    done.set_result(None)

    def send(message):
        return done

    async def main():
        for start in range(0, count, 1000):
            tasks = []
            for i in range(start, min(count, start + 1000)):
                scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                         "path": "/", "raw_path": b"/", "query_string": b"", "headers": [], "client": ("127.0.0.1", i),
                         "server": ("127.0.0.1", 8000), "scheme": "http", "root_path": ""}
                tasks.append(loop.create_task(app(scope, send, send)))
            await asyncio.gather(*tasks)

    began = time.perf_counter()
    loop.run_until_complete(main())
    elapsed = time.perf_counter() - began
    loop.close()
    return count / elapsed
