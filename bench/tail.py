"""Where a server's latency tail comes from: run by bench/tail, which makes sure the build and venv exist.

For each server (a fresh one, pinned to core 0 as bench/run pins it), after --warmup-seconds of wrk load:
--rounds rounds of h2load over HTTP/1.1 (-m1: one request in flight per connection, as wrk) on core 1,
each with a fresh set of connections (as bench/run's repetitions and a user's second wrk run have), every
request's latency logged (h2load --log-file). Meanwhile a sampler reads every thread's CPU time in the
server's processes every 100 ms (/proc/PID/task/TID/schedstat). Reported per server:
  - p50 / p90 / p99 / p99.9 / max of all rounds, and the same without each round's first 0.5 s (the new
    connections' set-up, and what C2 throws away when the last round's clients closed theirs);
  - how many requests took over --slow-ms, split by whether the JIT compiler threads ran >= 20 ms in
    the 250-ms window the request ended in (or the one before): what share of the tail is the JIT's.
Figures: docs/benchmarks.md. GET workloads only.
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import driver  # bench/run's driver, beside this file

BUCKET_S = 0.25
JIT_BUSY_MS = 20  # compiler threads' CPU in a bucket (or the one before) that marks it as compiling


class Sampler(threading.Thread):
    """Every 100 ms: CPU ms of the JIT compiler threads since the last reading, with the wall time."""

    def __init__(self, pids):
        super().__init__(daemon=True)
        self.pids, self.readings, self.stop = pids, [], threading.Event()

    def run(self):
        last = self.jit_ns()
        while not self.stop.wait(0.1):
            now = self.jit_ns()
            self.readings.append((time.time(), sum(now[t] - last.get(t, 0) for t in now) / 1e6))
            last = now

    def jit_ns(self):
        seen = {}
        for pid in self.pids:
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for task in tasks:
                try:
                    if "CompilerThre" in Path(f"/proc/{pid}/task/{task}/comm").read_text():
                        seen[pid, task] = int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
                except OSError:  # a compiler thread that exited between the listing and the read
                    pass
        return seen


def h2load_logged(server, workload, connections, seconds, log):
    command = ["taskset", "-c", driver.WRK_CORE, "h2load", "--h1", "-t1", f"-c{connections}", "-m1", f"-D{seconds}",
               f"--log-file={log}", driver.url(server, workload)]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    if finished.returncode != 0 or "finished in" not in finished.stdout:
        raise driver.BenchFailure(f"h2load failed against {server.name}: {finished.stdout}{finished.stderr}")
    # start (µs since the epoch), status, duration (µs)
    rows = [tuple(int(x) for x in line.split()) for line in log.read_text().splitlines() if line.strip()]
    bad = sum(1 for _, status, _ in rows if not 200 <= status < 300)
    if bad:
        raise driver.BenchFailure(f"{bad} answers other than 2xx from {server.name}")
    return rows


def percentiles(values):
    ordered = sorted(values)
    at = lambda q: ordered[min(len(ordered) - 1, int(len(ordered) * q))]
    return {"p50_ms": at(0.5), "p90_ms": at(0.9), "p99_ms": at(0.99), "p999_ms": at(0.999), "max_ms": ordered[-1]}


def analyse(rounds, readings, slow_ms):
    jit = collections.Counter()
    for wall, ms in readings:
        jit[int((wall - 0.05) / BUCKET_S)] += ms  # a reading covers the 100 ms before it
    everything, settled = [], []
    split = {"compiling": [0, 0], "quiet": [0, 0]}  # requests, of which slow
    for rows in rounds:
        began = min(start for start, _, _ in rows) / 1e6
        for start, _, micros in rows:
            ms = micros / 1e3
            everything.append(ms)
            if start / 1e6 - began >= 0.5:
                settled.append(ms)
            bucket = int((start + micros) / 1e6 / BUCKET_S)
            kind = "compiling" if jit[bucket] + jit[bucket - 1] >= JIT_BUSY_MS else "quiet"
            split[kind][0] += 1
            split[kind][1] += ms > slow_ms
    slow = sum(s for _, s in split.values())
    return {
        "requests": len(everything), "all": percentiles(everything), "after_first_half_second": percentiles(settled),
        "slow_ms": slow_ms, "slow": slow,
        "compiling_share_of_requests": round(split["compiling"][0] / len(everything), 3),
        "compiling_share_of_slow": round(split["compiling"][1] / slow, 3) if slow else None,
        "slow_rate_compiling": round(split["compiling"][1] / split["compiling"][0], 4) if split["compiling"][0] else None,
        "slow_rate_quiet": round(split["quiet"][1] / split["quiet"][0], 4) if split["quiet"][0] else None,
        "jit_cpu_ms": round(sum(ms for _, ms in readings)),
    }


def measure(kind, workload, options):
    """The rounds' per-request logs and the JIT sampler's readings of one fresh server."""
    server = driver.start_server(kind, workload.app, f"tail-{workload.name}", interface=workload.interface)
    try:
        driver.wait_ready(server, workload)
        if options.warmup_seconds:
            driver.wrk(server, workload, options.connections, options.warmup_seconds)
        sampler = Sampler(list(driver._server_pids(server)))
        sampler.start()
        try:
            with tempfile.TemporaryDirectory() as scratch:
                rounds = [h2load_logged(server, workload, options.connections, options.seconds, Path(scratch) / f"round{n}.log")
                          for n in range(options.rounds)]
        finally:
            sampler.stop.set()
            sampler.join()
        return rounds, sampler.readings
    finally:
        driver.stop_server(server)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/tail", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", default="^fastapi-json$", help="workloads (bench/run's names) matching this regex")
    p.add_argument("--servers", default="apx,uvicorn")
    p.add_argument("--connections", type=int, default=50)
    p.add_argument("--warmup-seconds", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=int, default=4)
    p.add_argument("--slow-ms", type=float, default=None, help="a slow request's latency (default: 2 x Uvicorn's median)")
    p.add_argument("--json", default=str(driver.ROOT / "target" / "tail.json"))
    return p.parse_args(argv)


def main(argv):
    options = parse_args(argv)
    selected = [w for w in driver.WORKLOADS if re.search(options.only, w.name)]
    unusable = [w.name for w in selected if w.post_bytes or w.body_file or w.h2 or w.tls or w.database]
    if not selected or unusable:
        sys.exit(f"tail: no GET workload matches {options.only!r}" if not selected
                 else f"tail: GET workloads only (not {', '.join(unusable)})")
    kinds = options.servers.split(",")
    unknown = [k for k in kinds if k != "uvicorn" and not driver.is_apx(k)]
    if unknown:
        sys.exit(f"tail: unknown server {', '.join(unknown)} (apx, apx:loop, apx:threads, uvicorn)")
    print(f"tail: load average {os.getloadavg()[0]:.1f}; {options.warmup_seconds} s wrk, then {options.rounds} x "
          f"{options.seconds} s h2load --h1 -m1 -c{options.connections}", flush=True)
    results = {}
    for workload in selected:
        try:
            raw = {kind: measure(kind, workload, options) for kind in kinds}
        except driver.BenchFailure as failure:
            sys.exit(f"tail: {workload.name}: {failure}")
        # slow: twice the peer's median (a request that waited about one more turn than Uvicorn's typical one)
        line = options.slow_ms or round(2 * statistics.median(
            ms / 1e3 for rows in raw["uvicorn" if "uvicorn" in raw else kinds[0]][0] for _, _, ms in rows), 1)
        for kind in kinds:
            row = results[f"{workload.name}/{kind}"] = analyse(*raw[kind], line)
            a, s = row["all"], row["after_first_half_second"]
            share = "-" if row["compiling_share_of_slow"] is None else f"{100 * row['compiling_share_of_slow']:.0f} %"
            print(f"{workload.name:16} {kind:8} {row['requests']:7d} req  p50 {a['p50_ms']:.2f}  p90 {a['p90_ms']:.2f}  "
                  f"p99 {a['p99_ms']:.2f} (after each round's first 0.5 s {s['p99_ms']:.2f})  p99.9 {a['p999_ms']:.2f}  "
                  f"max {a['max_ms']:.1f} ms; over {line} ms: {row['slow']}, {share} of them while the JIT compiled "
                  f"(JIT busy in {100 * row['compiling_share_of_requests']:.0f} % of the requests' windows; {row['jit_cpu_ms']} ms)",
                  flush=True)
    Path(options.json).write_text(json.dumps({"options": vars(options), "results": results}, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
