"""Failing traffic for bench/failing-apps.sh: CONCURRENCY loops, each sending the failing routes of
apxtest.failing_apps in turn on new connections (raise, SystemExit, invalid messages, bodies that
break their content-length, raise after the start, a send after the response, no response, a
handler that never finishes and is abandoned after 50 ms) for DURATION seconds. Prints one JSON
line: requests per route and how they ended.

    python bench/failing_load.py PORT DURATION [CONCURRENCY]
"""
import asyncio
import collections
import json
import sys
import time

ROUTES = ["/raise", "/exit", "/invalid/body-first", "/invalid/status-text", "/invalid/header-str",
          "/invalid/unknown-type", "/invalid/not-a-dict", "/invalid/start-twice", "/length/longer", "/length/shorter",
          "/length/invalid", "/length/conflicting", "/raise-after", "/late-send", "/no-response", "/never"]
ABANDON_AFTER = 0.05


async def one(port, route):
    """How the request ended: the status, 'closed' without a response, 'abandoned' or 'refused'."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return "refused"
    try:
        writer.write(f"GET {route} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
        timeout = ABANDON_AFTER if route == "/never" else 10
        try:
            data = await asyncio.wait_for(reader.read(), timeout)
        except asyncio.TimeoutError:
            return "abandoned"
        except ConnectionError:
            return "reset"
        return data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/1.1 ") else "closed"
    finally:
        writer.close()


async def client(port, end, first, outcomes):
    i = first
    while time.monotonic() < end:
        route = ROUTES[i % len(ROUTES)]
        outcomes[route][await one(port, route)] += 1
        i += 1


async def main(port, duration, concurrency):
    outcomes = collections.defaultdict(collections.Counter)
    end = time.monotonic() + duration
    await asyncio.gather(*(client(port, end, c, outcomes) for c in range(concurrency)))
    total = sum(sum(c.values()) for c in outcomes.values())
    print(json.dumps({"requests": total, "per_second": round(total / duration), "outcomes": outcomes}))


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 4))
