"""Cold start, apx beside Uvicorn (issue 13): run by bench/coldstart, which makes the venv.

For each app and connection count, each server is started cold (server on core 0, wrk on core 1):
  - launch to first 200 (wall seconds) and the CPU seconds the server had used by then
    (its own and its waited-for children's, from /proc: apx's Python probe counts);
  - RSS idle, --idle-seconds (default 1) after the first 200, when the load starts: the time a
    server has between its port answering and its first load (apx's idle warm-up runs in it);
  - req/s in 1-second wrk slices for the first N seconds of that load (a fresh wrk per
    slice, so each slice opens its connections again, as in the issue's figures), and the
    server's CPU-us per request in each slice (robust on a busy machine: how warm the code is);
  - the JIT compiler threads' CPU (C1 and C2, from /proc/PID/task) by the first 200 and in each slice:
    what the first seconds still spend compiling (0 for Uvicorn);
  - RSS under load (the peak seen at the end of any slice);
  - RSS after rounds of aborted streaming requests (plaintext only: raw:stream, the client
    closes after the response head).
Figures are printed as a table and written as JSON (target/coldstart.json by default).
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from driver import jit_cpu_seconds  # bench/run's driver, beside this file

ROOT = Path(__file__).resolve().parent.parent
APPS = ROOT / "bench" / "apps"
VENV_PYTHON = ROOT / ".venv" / "bench" / "bin" / "python"
JIT_QUIET_MS = 100  # compiler threads' CPU per 1-s slice below which the JIT counts as quiet
SERVER_CORE, WRK_CORE = "0", "1"
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


class App:
    def __init__(self, name, spec, path, aborts_path=None, needs=None):
        self.name, self.spec, self.path, self.aborts_path, self.needs = name, spec, path, aborts_path, needs


APPS_TABLE = [
    App("plaintext", "mixed:app", "/", aborts_path="/stream"),  # raw.hello at /, raw.stream at /stream
    App("fastapi", "frameworks:fastapi", "/items/42?q=bench"),
    # The TechEmpower-style /db app of issue 12; skipped while bench/apps/db.py or PostgreSQL is absent.
    App("db", "db:app", "/db", needs="db"),
]


def server_command(kind, app, port):
    if kind == "apx":
        return [str(ROOT / "bin" / "apx"), "--python", str(VENV_PYTHON), "--app-dir", str(APPS), "--port", str(port),
                "--no-access-log", "--log-level", "warning", app]
    return [str(VENV_PYTHON), "-m", "uvicorn", "--loop", "uvloop", "--http", "httptools", "--app-dir", str(APPS),
            "--port", str(port), "--no-access-log", "--log-level", "warning", app]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """utime + stime + cutime + cstime of pid (fields 14-17 of /proc/pid/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / CLK_TCK


def compiler_seconds(pid):
    """CPU seconds of the JIT compiler threads of pid so far, those that have exited included."""
    return jit_cpu_seconds(pid, [pid])


def rss_mb(pid):
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * PAGE / 1e6


def server_pid(process):
    """The server's own pid: bin/apx execs java, so it is the launched process."""
    return process.pid


def start(kind, app, port, env):
    launched = time.monotonic()
    process = subprocess.Popen(["taskset", "-c", SERVER_CORE] + server_command(kind, app.spec, port),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    url = f"http://127.0.0.1:{port}{app.path}"
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{kind} {app.spec} exited {process.returncode}: {process.stderr.read().decode()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    response.read()
                    break
        except OSError:
            time.sleep(0.005)
    first = time.monotonic() - launched
    return process, first, cpu_seconds(process.pid), compiler_seconds(process.pid)


def wrk_slice(url, connections):
    out = subprocess.run(["taskset", "-c", WRK_CORE, "wrk", "-t1", f"-c{connections}", "-d1s", "--timeout", "5s", url],
                         capture_output=True, text=True).stdout
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return float(match.group(1)) if match else 0.0


def aborts(port, path, count):
    """count requests for a streaming response, each connection closed after the first bytes."""
    request = f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    for _ in range(count):
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(request)
            s.recv(1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST


def run_one(kind, app, connections, seconds, idle_seconds, abort_rounds, abort_count, env):
    port = free_port()
    process, first, cpu, compiling = start(kind, app, port, env)
    pid = server_pid(process)
    row = {"server": kind, "app": app.name, "connections": connections, "first_200_s": round(first, 3),
           "cpu_to_first_200_s": round(cpu, 3), "jit_cpu_to_first_200_s": round(compiling, 3)}
    try:
        time.sleep(idle_seconds)
        row["idle_seconds"] = idle_seconds
        row["rss_idle_mb"] = round(rss_mb(pid), 1)
        url = f"http://127.0.0.1:{port}{app.path}"
        curve, cost, jit, peak = [], [], [], 0.0
        for _ in range(seconds):
            before, compiled = cpu_seconds(pid), compiler_seconds(pid)
            rate = wrk_slice(url, connections)
            used = cpu_seconds(pid) - before
            jit.append(round((compiler_seconds(pid) - compiled) * 1000))
            curve.append(round(rate))
            # The server's CPU per request in this slice: how warm it is, whatever share of the core it got.
            cost.append(round(used / rate * 1e6) if rate else None)
            peak = max(peak, rss_mb(pid))
        row["req_per_s"] = curve
        row["cpu_us_per_req"] = cost
        row["jit_cpu_ms"] = jit
        row["rss_load_mb"] = round(peak, 1)
        tail = sorted(curve[-5:])
        row["steady"] = tail[len(tail) // 2]
        # apx's JIT compiles for ~10 s on one core: a tail it still compiles in is not its steady state
        row["steady_jit_quiet"] = all(ms < JIT_QUIET_MS for ms in jit[-5:])
        row["second_2_share"] = round(curve[1] / row["steady"], 2) if row["steady"] and len(curve) > 1 else None
        if app.aborts_path and abort_rounds:
            after = []
            for _ in range(abort_rounds):
                aborts(port, app.aborts_path, abort_count)
                time.sleep(0.5)
                after.append(round(rss_mb(pid), 1))
            row["rss_after_aborts_mb"] = after
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return row


def db_available():
    return (APPS / "db.py").exists() and subprocess.run(["pg_isready", "-q"], capture_output=True).returncode == 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default=".", help="regex over 'server/app/connections' rows to run (default all)")
    p.add_argument("--seconds", type=int, default=20, help="1-second slices after the first 200 (default 20)")
    p.add_argument("--idle-seconds", type=float, default=1.0,
                   help="seconds between the first 200 and the load (default 1; apx's idle warm-up runs in them)")
    p.add_argument("--connections", default="50,256", help="wrk connection counts (default 50,256)")
    p.add_argument("--servers", default="apx,uvicorn")
    p.add_argument("--abort-rounds", type=int, default=6, help="rounds of aborted streaming requests, plaintext only (default 6)")
    p.add_argument("--abort-count", type=int, default=2000, help="aborted requests per round (default 2000)")
    p.add_argument("--repeat", type=int, default=1, help="runs of each row (default 1)")
    p.add_argument("--json", default=str(ROOT / "target" / "coldstart.json"))
    options = p.parse_args()
    env = dict(os.environ)
    rows = []
    print(f"coldstart: load average at start {os.getloadavg()[0]:.2f}; APX_JAVA_OPTS={env.get('APX_JAVA_OPTS', '')!r}", flush=True)
    for app in APPS_TABLE:
        for connections in [int(c) for c in options.connections.split(",")]:
            for kind in options.servers.split(","):
                label = f"{kind}/{app.name}/{connections}"
                if not re.search(options.only, label):
                    continue
                if app.needs == "db" and not db_available():
                    print(f"{label}: skipped (bench/apps/db.py or PostgreSQL not available)", flush=True)
                    continue
                for _ in range(options.repeat):
                    row = run_one(kind, app, connections, options.seconds, options.idle_seconds, options.abort_rounds if connections == 50 else 0,
                                  options.abort_count, env)
                    row["load_average"] = round(os.getloadavg()[0], 2)
                    rows.append(row)
                    print(f"{label}: first 200 {row['first_200_s']} s (cpu {row['cpu_to_first_200_s']} s, "
                          f"JIT {row['jit_cpu_to_first_200_s']} s), "
                          f"RSS idle {row['rss_idle_mb']} MB, load {row['rss_load_mb']} MB, "
                          f"aborts {row.get('rss_after_aborts_mb', '-')}; req/s {row['req_per_s']}; cpu-us/req {row['cpu_us_per_req']}; JIT ms {row['jit_cpu_ms']}; "
                          f"2nd second {row['second_2_share']} of steady {row['steady']}"
                          f"{'' if row['steady_jit_quiet'] else ' (JIT still compiling then: not the steady state)'}; load avg {row['load_average']}",
                          flush=True)
    Path(options.json).parent.mkdir(parents=True, exist_ok=True)
    Path(options.json).write_text(json.dumps(rows, indent=1))
    print(f"coldstart: load average at end {os.getloadavg()[0]:.2f}; rows in {options.json}")


if __name__ == "__main__":
    sys.exit(main())
