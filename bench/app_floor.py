"""The in-process floor of an ASGI app: its own Python per request, with no server at all.

    .venv/bench/bin/python bench/app_floor.py [--requests N] [--concurrency C] [--profile] [module:attr path ...]

Calls the app directly on one uvloop loop, N times (C at a time, as C connections would), with a receive() that returns the
empty body (and then waits, as a server's does until the client leaves) and a send() that keeps nothing, and prints the
process's CPU time per request (the app's own threads included). No server
can serve the app faster than 1 / floor requests per second on one core; what a server adds is
its measured CPU per request minus this floor. --profile adds cProfile's top functions.
"""
import argparse
import asyncio
import cProfile
import io
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "apps"))

DEFAULT = ["raw:hello /", "frameworks:starlette /json", "frameworks:fastapi /items/42?q=bench", "django_app:application /json"]


def scope_for(target):
    path, _, query = target.partition("?")
    return {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1",
            "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": query.encode(), "root_path": "",
            "headers": [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"wrk"), (b"accept", b"*/*")],
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {}, "extensions": {}}


async def serve(app, target, requests, concurrency=1):
    if concurrency > 1:
        await asyncio.gather(*(serve(app, target, requests // concurrency) for _ in range(concurrency)))
        return

    sent = []

    async def send(message):
        sent.append(message["type"])

    for _ in range(requests):
        delivered = False

        async def receive():
            # the empty body once; after it, ASGI's receive() waits for the disconnect (Django's
            # handler listens for it in a task of its own, cancelled when the response is done)
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.get_running_loop().create_future()

        await app(scope_for(target), receive, send)
    if sent[:2] != ["http.response.start", "http.response.body"]:
        raise SystemExit(f"{target}: unexpected messages {sent[:3]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("apps", nargs="*", help='"module:attr path" pairs')
    args = parser.parse_args()
    import uvloop
    for spec in args.apps or DEFAULT:
        name, target = spec.split()
        module, attr = name.split(":")
        app = getattr(__import__(module), attr)
        loop = uvloop.new_event_loop()
        loop.run_until_complete(serve(app, target, 2000))  # warm-up
        began = time.process_time()  # the process's: an app's own threads count (Django's asgiref thread per request)
        loop.run_until_complete(serve(app, target, args.requests, args.concurrency))
        per_request = (time.process_time() - began) / args.requests
        print(f"{name} {target}: {per_request * 1e6:.1f} us CPU per request in-process"
              f" (at most {1 / per_request:,.0f} req/s on one core)")
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            loop.run_until_complete(serve(app, target, 5000, args.concurrency))
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
            print(out.getvalue())
        loop.close()


if __name__ == "__main__":
    main()
