"""WebSocket echo load for bench/run (wrk does not speak WebSocket).

    python bench/wsload.py ws://HOST:PORT/ --connections 100 --duration 5 [--size 64]
    python bench/wsload.py ws://HOST:PORT/ --check

Like wrk's closed loop: each connection sends a text message, waits for its echo, sends the next.
Prints one JSON object: messages/s, latency percentiles (ms), errors. Runs on uvloop; no
permessage-deflate (the echo path is measured, not zlib). One process, so on one core it can be
the bottleneck: check the server CPU column.
"""
import argparse
import asyncio
import json
import sys
import time

import uvloop
from websockets.asyncio.client import connect


async def one_connection(url, payload, deadline, latencies, errors):
    try:
        async with connect(url, compression=None, max_size=None, open_timeout=10) as ws:
            while time.perf_counter() < deadline:
                began = time.perf_counter()
                await ws.send(payload)
                echoed = await ws.recv()
                if echoed != payload:
                    errors["mismatch"] += 1
                latencies.append(time.perf_counter() - began)
    except Exception as e:  # a connection that fails counts as an error, as wrk's socket errors do
        errors["socket"] += 1
        errors.setdefault("first", repr(e))


async def load(url, connections, duration, size):
    payload = "x" * size
    latencies, errors = [], {"socket": 0, "mismatch": 0}
    began = time.perf_counter()
    deadline = began + duration
    await asyncio.gather(*(one_connection(url, payload, deadline, latencies, errors) for _ in range(connections)))
    elapsed = time.perf_counter() - began
    latencies.sort()

    def percentile(p):
        return 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * p / 100))] if latencies else 0.0

    return {"rps": len(latencies) / elapsed, "requests": len(latencies), "duration_s": elapsed,
            "p50_ms": percentile(50), "p75_ms": percentile(75), "p90_ms": percentile(90), "p99_ms": percentile(99),
            "socket_errors": errors["socket"], "non_2xx": errors["mismatch"], "errors": errors["socket"] + errors["mismatch"],
            "first_error": errors.get("first")}


async def check(url):
    async with connect(url, compression=None, open_timeout=10) as ws:
        await ws.send("ping")
        return await asyncio.wait_for(ws.recv(), 10) == "ping"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("--connections", type=int, default=100)
    p.add_argument("--duration", type=float, default=5)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--check", action="store_true", help="one echo; exit 0 if it came back")
    options = p.parse_args()
    if options.check:
        try:
            ok = uvloop.run(check(options.url))
        except Exception as e:
            print(f"no WebSocket echo: {e!r}", file=sys.stderr)
            sys.exit(1)
        sys.exit(0 if ok else 1)
    print(json.dumps(uvloop.run(load(options.url, options.connections, options.duration, options.size))))


if __name__ == "__main__":
    main()
