"""bench/gc-rate's driver: how often Python's cyclic collector runs per request on the db row.

One server (apx with its defaults, or Uvicorn with uvloop and httptools: bench/run's commands) on
core 0 serving bench/apps/gc_counted.py, PostgreSQL beside wrk on core 1, 10 s of wrk -c64 as
warm-up, then 5 s of wrk per connection count; after each, the app's /gcstats: collections per
1,000 requests by generation, the collector's CPU per request, the threads that started them.
"""
import json
import os
import sys
import urllib.request

import driver
from postgres import Postgres

GC_ROW = driver.Workload("gc-rate", "gc_counted:app", "/db", database=True)


def gc_stats(server):
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/gcstats", timeout=5) as response:
        return json.load(response)


def main(argv):
    if not argv or argv[0] not in ("apx", "uvicorn"):
        sys.exit("usage: bench/gc-rate apx|uvicorn [CONNS...]")
    kind, counts = argv[0], [int(c) for c in argv[1:]] or [16, 64, 256]
    driver.RESULTS.mkdir(exist_ok=True)
    with Postgres(driver.RESULTS / "postgres.log", core=driver.WRK_CORE) as database:
        os.environ[driver.DSN_VARIABLE] = database.dsn
        server = driver.start_server(kind, GC_ROW.app, "gc-rate")
        try:
            driver.wait_ready(server, GC_ROW)
            driver.wrk(server, GC_ROW, 64, 10)
            for connections in counts:
                gc_stats(server)  # resets the counts
                rps = driver.wrk(server, GC_ROW, connections, 5)["rps"]
                stats = gc_stats(server)
                requests = max(stats["requests"], 1)
                rates = ", ".join(f"gen{g} {stats['collections'][g] * 1000 / requests:.2f}" for g in "012")
                cpu = sum(stats["cpu_seconds"].values()) * 1e6 / requests
                print(f"{kind} c={connections}: {stats['requests']} requests ({rps:,.0f}/s); collections per "
                      f"1,000 requests: {rates}; collector CPU {cpu:.1f} us/request; gen0 started on {stats['threads']}",
                      flush=True)
        finally:
            driver.stop_server(server)


if __name__ == "__main__":
    main(sys.argv[1:])
