"""Issue 26's targets, apx --interpreters N beside Uvicorn 0.54: run by bench/interpreters (it makes the venv).

All on the FastAPI app bench/apps/runtimes.py (frameworks:fastapi plus GET /runtime), 127.0.0.1,
server and wrk unpinned (they share the cores), Uvicorn with --loop uvloop --http httptools:
  1. memory: total PSS (sum of /proc/PID/smaps_rollup Pss over the server's process tree), idle 1 s after
     every runtime or worker has answered and again --settle-seconds after (settled), and right after
     wrk -t2 -c64 for --load-seconds;
     apx --interpreters 1, 2, 4 and uvicorn --workers 4;
  2. startup (apx --interpreters 4, from the memory round): launch to first 200, and when each runtime
     first answered GET /runtime on a fresh connection (connections are spread at accept);
  3. throughput: wrk -t2 -c64 after a warm-up round, apx --interpreters 1, 2 and uvicorn --workers 2,
     alternating, --repeat times; req/s and the server tree's CPU-us per request over the measured round;
  4. reload: --reload of a FastAPI app copied into a temp dir, --reload-delay 0.25 on both; from saving
     an edit (the JSON a route returns) until a fresh connection gets the new body, median of --edits.
Every server runs in its own process group, killed at the end. Figures: a table, and JSON
(target/interpreters.json by default).
"""
import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ROOT / "bench" / "apps"
VENV_PYTHON = ROOT / ".venv" / "bench" / "bin" / "python"
APP = "runtimes:app"
JSON_PATH = "/items/42?q=bench"
CLK_TCK = os.sysconf("SC_CLK_TCK")
QUIET = ["--no-access-log", "--log-level", "warning"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def apx_command(port, interpreters, extra=(), app_dir=APPS, app=APP):
    return [str(ROOT / "bin" / "apx"), "--python", str(VENV_PYTHON), "--app-dir", str(app_dir), "--host", "127.0.0.1",
            "--port", str(port), "--interpreters", str(interpreters), *QUIET, *extra, app]


def uvicorn_command(port, workers, extra=(), app_dir=APPS, app=APP):
    return [str(VENV_PYTHON), "-m", "uvicorn", "--loop", "uvloop", "--http", "httptools", "--app-dir", str(app_dir),
            "--host", "127.0.0.1", "--port", str(port), *(["--workers", str(workers)] if workers else []),
            *QUIET, *extra, app]


class Server:
    """A server in its own process group (start_new_session), so stop() ends the whole tree."""
    running = []

    def __init__(self, label, command, port, cwd=None, log_info=False):
        self.label, self.port = label, port
        if log_info:
            command = [c if c != "warning" else "info" for c in command]
        self.stderr = tempfile.TemporaryFile()
        self.launched = time.monotonic()
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=self.stderr, cwd=cwd,
                                        start_new_session=True)
        Server.running.append(self)

    def log(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def check(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"{self.label} exited {self.process.returncode}: {self.log()[-2000:]}")

    def get(self, path, timeout=5):
        """One request on a fresh connection: (status, body) or None while nothing listens."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=timeout) as response:
                return response.status, response.read()
        except OSError:
            return None

    def wait_first_200(self, path=JSON_PATH, limit=120):
        while time.monotonic() - self.launched < limit:
            self.check()
            answer = self.get(path)
            if answer and answer[0] == 200:
                return time.monotonic() - self.launched
            time.sleep(0.005)
        raise RuntimeError(f"{self.label}: no 200 within {limit} s: {self.log()[-2000:]}")

    def wait_runtimes(self, count, limit=60):
        """When each of count runtimes (or workers) first answered GET /runtime; what told them apart.

        apx gives a new connection to the runtime with the fewest open connections, so one
        connection at a time would always reach the first: each try holds count fresh connections
        open at once (so they land on count runtimes), then asks /runtime on each."""
        seen = {}
        while len(seen) < count:
            if time.monotonic() - self.launched > limit:
                raise RuntimeError(f"{self.label}: only {len(seen)} of {count} runtimes answered in {limit} s")
            self.check()
            for body in self.concurrent_gets("/runtime", count):
                if body is not None:
                    key = tuple(sorted(json.loads(body).items()))
                    seen.setdefault(key, time.monotonic() - self.launched)
            if len(seen) < count:
                time.sleep(0.005)
        return sorted(seen.values())

    def concurrent_gets(self, path, count):
        """count connections opened together, then one GET each: the bodies of the 200s (None for others)."""
        sockets, bodies = [], []
        try:
            for _ in range(count):
                try:
                    sockets.append(socket.create_connection(("127.0.0.1", self.port), timeout=5))
                except OSError:
                    pass
            time.sleep(0.01)  # every connection accepted (and assigned) before any request
            for s in sockets:
                try:
                    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                    bodies.append(read_response(s))
                except OSError:
                    bodies.append(None)
        finally:
            for s in sockets:
                s.close()
        return bodies

    def tree(self):
        """The server's pids: the launched process and all its descendants."""
        pids, queue = [], [self.process.pid]
        while queue:
            pid = queue.pop()
            pids.append(pid)
            try:
                for task in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{task}/children") as f:
                        queue.extend(int(c) for c in f.read().split())
            except (FileNotFoundError, ProcessLookupError):
                pass
        return pids

    def pss_mb(self):
        total = 0
        for pid in self.tree():
            try:
                with open(f"/proc/{pid}/smaps_rollup") as f:
                    total += int(re.search(r"^Pss:\s+(\d+) kB", f.read(), re.M).group(1))
            except (FileNotFoundError, ProcessLookupError, AttributeError):
                pass
        return total / 1024

    def cpu_seconds(self):
        """utime + stime of every live process of the tree (not cutime: the workers are alive)."""
        total = 0
        for pid in self.tree():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    total += sum(int(x) for x in f.read().rsplit(")", 1)[1].split()[11:13])
            except (FileNotFoundError, ProcessLookupError):
                pass
        return total / CLK_TCK

    def stop(self):
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        try:  # what is left of the group (a worker that outlived its parent)
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if self in Server.running:
            Server.running.remove(self)


def read_response(s):
    """The body of one HTTP/1.1 response with Content-Length, or None when it is not a 200."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            return None
        body += chunk
    return body[:length] if head.split(b" ", 2)[1] == b"200" else None


def wrk(port, seconds, path=JSON_PATH):
    out = subprocess.run(["wrk", "-t2", "-c64", f"-d{seconds}s", "--timeout", "5s", f"http://127.0.0.1:{port}{path}"],
                         capture_output=True, text=True).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)|Socket errors: (.*)", out)
    return (float(rate.group(1)) if rate else 0.0, int(total.group(1)) if total else 0,
            errors.group(0) if errors else "")


def server_for(kind, count, port, **kw):
    if kind == "apx":
        return Server(f"apx --interpreters {count}", apx_command(port, count), port, **kw)
    return Server(f"uvicorn --workers {count}", uvicorn_command(port, count), port, **kw)


def memory_round(kind, count, load_seconds, settle_seconds):
    port = free_port()
    server = server_for(kind, count, port)
    try:
        row = {"server": server.label, "first_200_s": round(server.wait_first_200(), 3)}
        runtimes = server.wait_runtimes(count)
        row["runtimes_first_answer_s"] = [round(t, 3) for t in runtimes]
        row["last_minus_first_runtime_s"] = round(runtimes[-1] - runtimes[0], 3)
        # PSS each second for --settle-seconds: the first reading (1 s) is the one earlier sessions report; it
        # still holds the start's JIT work (HotSpot frees a compilation's arena chunks every 5 s). The last is
        # the server left idle, as a user reads it some seconds after start.
        series = []
        for _ in range(max(1, settle_seconds)):
            time.sleep(1)
            series.append(round(server.pss_mb(), 1))
        row["pss_idle_mb"], row["pss_settled_mb"], row["pss_idle_series_mb"] = series[0], series[-1], series
        rate, _, errors = wrk(port, load_seconds)
        row["pss_after_load_mb"] = round(server.pss_mb(), 1)
        row["load_req_per_s"], row["load_errors"] = round(rate), errors
        row["processes"] = len(server.tree())
        return row
    finally:
        server.stop()


def app_import_s(samples=3):
    """What one import of the app takes here and now (a fresh python each time, median): the issue reads its
    0.5-s start line as "app import time", and on 2 cores the last of 4 runtimes waits for about one more."""
    code = f"import time; t = time.perf_counter(); import {APP.split(':')[0]}; print(time.perf_counter() - t)"
    times = []
    for _ in range(samples):
        done = subprocess.run([str(VENV_PYTHON), "-c", code], cwd=APPS, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"interpreters: importing {APP} alone failed: {done.stderr.strip().splitlines()[-1:]}")
        times.append(float(done.stdout))
    return round(statistics.median(times), 3)


def throughput_round(kind, count, warmup, seconds):
    port = free_port()
    server = server_for(kind, count, port)
    try:
        server.wait_first_200()
        server.wait_runtimes(count)
        wrk(port, warmup)
        before, load_before = server.cpu_seconds(), os.getloadavg()[0]
        rate, requests, errors = wrk(port, seconds)
        used = server.cpu_seconds() - before
        return {"server": server.label, "req_per_s": round(rate), "requests": requests,
                "cpu_us_per_req": round(used / requests * 1e6) if requests else None,
                "server_cores": round(used / seconds, 2), "errors": errors, "load_average": round(load_before, 2)}
    finally:
        server.stop()


RELOAD_APP = textwrap.dedent("""\
    from fastapi import FastAPI

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)


    @app.get("/version")
    async def version() -> dict:
        return {{"version": {version}}}
    """)


def reload_round(kind, edits):
    with tempfile.TemporaryDirectory(prefix="apx-reload-bench-") as tmp:
        source = Path(tmp) / "reloadapp.py"
        source.write_text(RELOAD_APP.format(version=0))
        port = free_port()
        extra = ["--reload", "--reload-dir", tmp, "--reload-delay", "0.25"]
        if kind == "apx":
            server = Server("apx --reload", apx_command(port, 1, extra, tmp, "reloadapp:app"), port, cwd=tmp, log_info=True)
        else:
            server = Server("uvicorn --reload", uvicorn_command(port, 0, extra, tmp, "reloadapp:app"), port, cwd=tmp, log_info=True)
        try:
            server.wait_first_200("/version")
            time.sleep(1.5)  # the watcher is up (both start it before or beside the worker)
            times = []
            for version in range(1, edits + 1):
                expected = json.dumps({"version": version}).replace(" ", "").encode()
                saved = time.monotonic()
                source.write_text(RELOAD_APP.format(version=version))
                while True:
                    if time.monotonic() - saved > 30:
                        raise RuntimeError(f"{server.label}: edit {version} not served in 30 s: {server.log()[-2000:]}")
                    server.check()
                    answer = server.get("/version", timeout=2)
                    if answer and answer[0] == 200 and answer[1].replace(b" ", b"") == expected:
                        break
                    time.sleep(0.005)
                times.append(time.monotonic() - saved)
                time.sleep(1.0)  # the old runtime or worker is retired before the next edit
            reloaded = re.findall(r"Reloaded in (\d+) ms", server.log())
            return {"server": server.label, "edit_to_new_body_s": [round(t, 3) for t in times],
                    "median_s": round(statistics.median(times), 3),
                    "apx_reloaded_in_ms": [int(x) for x in reloaded] if kind == "apx" else None}
        finally:
            server.stop()


def ratio(a, b):
    return round(a / b, 2) if b else None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="short rounds for a smoke test (figures are not usable)")
    p.add_argument("--load-seconds", type=int, default=15)
    p.add_argument("--settle-seconds", type=int, default=10,
                   help="PSS read every second this long after every runtime answered; the last is the settled idle figure")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--repeat", type=int, default=2, help="throughput rounds of each server, alternating (default 2)")
    p.add_argument("--edits", type=int, default=5)
    p.add_argument("--only", default="memory,throughput,reload")
    p.add_argument("--json", default=str(ROOT / "target" / "interpreters.json"))
    o = p.parse_args()
    if o.quick:
        o.load_seconds, o.warmup, o.seconds, o.repeat, o.edits, o.settle_seconds = 3, 2, 3, 1, 2, 2
    started, loads = time.monotonic(), [os.getloadavg()[0]]
    result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": " ".join(["bench/interpreters", *sys.argv[1:]])}
    print(f"interpreters: load average at start {loads[0]:.2f}", flush=True)
    try:
        if "memory" in o.only:
            memory = []
            for kind, count in [("uvicorn", 4), ("apx", 4), ("apx", 1), ("apx", 2)]:
                if kind == "apx" and count == 4:
                    result["app_import_s"] = app_import_s()
                    print(f"memory: one import of {APP} alone: {result['app_import_s']} s", flush=True)
                row = memory_round(kind, count, o.load_seconds, o.settle_seconds)
                loads.append(os.getloadavg()[0])
                print(f"memory: {row}", flush=True)
                memory.append(row)
            result["memory"] = memory
        if "throughput" in o.only:
            rounds = []
            for _ in range(o.repeat):
                for kind, count in [("apx", 1), ("apx", 2), ("uvicorn", 2)]:
                    row = throughput_round(kind, count, o.warmup, o.seconds)
                    loads.append(os.getloadavg()[0])
                    print(f"throughput: {row}", flush=True)
                    rounds.append(row)
            result["throughput"] = rounds
        if "reload" in o.only:
            result["reload"] = []
            for kind in ["apx", "uvicorn"]:
                row = reload_round(kind, o.edits)
                loads.append(os.getloadavg()[0])
                print(f"reload: {row}", flush=True)
                result["reload"].append(row)
    finally:
        for server in list(Server.running):
            server.stop()
    result["load_average"] = {"min": round(min(loads), 2), "max": round(max(loads), 2)}
    result["wall_s"] = round(time.monotonic() - started)
    result["summary"] = summary(result)
    print(json.dumps(result["summary"], indent=1))
    print(f"interpreters: load average {result['load_average']}, {result['wall_s']} s")
    Path(o.json).parent.mkdir(parents=True, exist_ok=True)
    Path(o.json).write_text(json.dumps(result, indent=1))


def summary(result):
    """The issue's targets as ratios (medians over the repeated rounds)."""
    s = {}
    memory = {row["server"]: row for row in result.get("memory", [])}
    uv, apx4 = memory.get("uvicorn --workers 4"), memory.get("apx --interpreters 4")
    if uv and apx4:
        s["pss_idle_apx4_over_uvicorn4 (target <= 1.5)"] = ratio(apx4["pss_idle_mb"], uv["pss_idle_mb"])
        s["pss_settled_apx4_over_uvicorn4 (target <= 1.5)"] = ratio(apx4["pss_settled_mb"], uv["pss_settled_mb"])
        s["pss_load_apx4_over_uvicorn4 (target <= 1.5)"] = ratio(apx4["pss_after_load_mb"], uv["pss_after_load_mb"])
        s["runtimes_2_to_4_after_first_s (target <= 0.5)"] = apx4["last_minus_first_runtime_s"]
        if "app_import_s" in result:
            s["app_import_alone_s"] = result["app_import_s"]
    if all(f"apx --interpreters {n}" in memory for n in (1, 2, 4)):
        idle = [memory[f"apx --interpreters {n}"]["pss_idle_mb"] for n in (1, 2, 4)]
        s["pss_idle_apx_1_2_4_mb"] = idle
        s["pss_idle_per_extra_runtime_mb"] = round((idle[2] - idle[0]) / 3, 1)
    rates = {}
    for row in result.get("throughput", []):
        rates.setdefault(row["server"], []).append(row)
    med = {k: statistics.median(r["req_per_s"] for r in v) for k, v in rates.items()}
    s["req_per_s_median"] = med
    s["cpu_us_per_req_median"] = {k: statistics.median(r["cpu_us_per_req"] or 0 for r in v) for k, v in rates.items()}
    if {"apx --interpreters 1", "apx --interpreters 2", "uvicorn --workers 2"} <= med.keys():
        s["apx2_over_apx1 (target >= 1.7)"] = ratio(med["apx --interpreters 2"], med["apx --interpreters 1"])
        s["apx2_over_uvicorn2 (target >= 1.2)"] = ratio(med["apx --interpreters 2"], med["uvicorn --workers 2"])
    reload = {row["server"]: row for row in result.get("reload", [])}
    if len(reload) == 2:
        s["reload_median_apx_s"] = reload["apx --reload"]["median_s"]
        s["reload_median_uvicorn_s"] = reload["uvicorn --reload"]["median_s"]
        s["reload_apx_over_uvicorn (target <= 1)"] = ratio(reload["apx --reload"]["median_s"], reload["uvicorn --reload"]["median_s"])
    return s


if __name__ == "__main__":
    sys.exit(main())
