"""The app of FailingAppsIT and bench/failing-apps.sh: one healthy route beside
routes that fail in every way an app can, to show the failures stay with their own requests.

/healthy/ID        answers `ok ID` at once
/raise             raises before starting the response
/raise-after       starts a response, sends part of the body, raises
/exit              raises SystemExit (a BaseException) before starting
/invalid/KIND      sends an invalid message (see INVALID) and so gets RuntimeError from send()
/late-send         completes its response, then sends once more (RuntimeError, the response stands)
/no-response       returns without sending anything
/length/KIND       a body that breaks its own content-length of 10: longer (8 bytes, then 4 more),
                   shorter (5 bytes in all), invalid (the value is not a number), conflicting (10 and 12)
/never[/ID]        never finishes (awaits an event nobody sets) until cancelled; prints "never ID"
                   once running when given an ID
/stalled           sends its head and a first chunk (`waiting`), then never finishes
/block?ms=M        blocks the event loop: time.sleep, synchronous code in an async handler

Every handler ends in one outcome, counted: completed, raised, cancelled. Lifespan shutdown
writes the counts and those still running into $APX_FAILING_MARKER (when set) as JSON.
"""
import asyncio
import json
import os
import time
from urllib.parse import parse_qs

counts = {"started": 0, "completed": 0, "raised": 0, "cancelled": 0}

INVALID = {
    "body-first": [{"type": "http.response.body", "body": b"no start"}],
    "status-text": [{"type": "http.response.start", "status": "200", "headers": []}],
    "header-str": [{"type": "http.response.start", "status": 200, "headers": [("x-name", "str, not bytes")]}],
    "unknown-type": [{"type": "http.response.nope"}],
    "not-a-dict": ["http.response.start"],
    "start-twice": [{"type": "http.response.start", "status": 200, "headers": []},
                    {"type": "http.response.start", "status": 200, "headers": []}],
}


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return
    parts = scope["path"].strip("/").split("/")
    counts["started"] += 1
    try:
        await ROUTES[parts[0]](parts[1:], scope, send)
    except asyncio.CancelledError:
        counts["cancelled"] += 1
        raise
    except BaseException:
        counts["raised"] += 1
        raise
    counts["completed"] += 1


async def lifespan(receive, send):
    while True:
        message = await receive()
        if message["type"] == "lifespan.shutdown" and os.environ.get("APX_FAILING_MARKER"):
            running = counts["started"] - counts["completed"] - counts["raised"] - counts["cancelled"]
            with open(os.environ["APX_FAILING_MARKER"], "w") as marker:
                json.dump(dict(counts, running=running), marker)
        await send({"type": message["type"] + ".complete"})
        if message["type"] == "lifespan.shutdown":
            return


async def respond(send, body):
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def healthy(args, scope, send):
    await respond(send, b"ok " + args[0].encode())


async def raise_before(args, scope, send):
    raise ValueError("boom before the response")


async def raise_after(args, scope, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"partial", "more_body": True})
    raise ValueError("boom in the middle of the body")


async def exit_(args, scope, send):
    raise SystemExit(3)


async def invalid(args, scope, send):
    for message in INVALID[args[0]]:
        await send(message)


async def late_send(args, scope, send):
    await respond(send, b"complete")
    await send({"type": "http.response.body", "body": b"one too many"})


async def length(args, scope, send):
    values, bodies = {"longer": ([b"10"], [b"01234567", b"89AB"]), "shorter": ([b"10"], [b"short"]),
                      "invalid": ([b"ten"], [b"0123456789"]), "conflicting": ([b"10", b"12"], [b"0123456789"])}[args[0]]
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", v) for v in values]})
    for i, body in enumerate(bodies):
        await send({"type": "http.response.body", "body": body, "more_body": i < len(bodies) - 1})


async def no_response(args, scope, send):
    return None


async def never(args, scope, send):
    if args:
        print("never", args[0], flush=True)
    await asyncio.Event().wait()


async def stalled(args, scope, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"waiting", "more_body": True})
    await asyncio.Event().wait()


async def block(args, scope, send):
    query = parse_qs(scope["query_string"].decode())
    time.sleep(int(query["ms"][0]) / 1000)
    await respond(send, b"blocked")


ROUTES = {"healthy": healthy, "raise": raise_before, "raise-after": raise_after, "exit": exit_, "invalid": invalid,
          "late-send": late_send, "no-response": no_response, "length": length, "never": never,
          "stalled": stalled, "block": block}
