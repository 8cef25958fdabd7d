"""The benchmark driver behind bench/run: apx against its peers, workload by workload, with wrk.

Each workload's app is served by apx and by its peers (Uvicorn, Granian and Hypercorn; on the WSGI
rows Gunicorn too), all pinned to core 0, each on its own port, all alive for the workload's
measurements; wrk runs pinned to core 1. Each server is checked for the right answer, then warmed
up, then measured REPS times per connection count, the servers alternating. Every measurement also takes the server's CPU time and context switches
(all its threads, from /proc) over its window, reported per request. Results go to
bench/results/latest.json and .tsv, a table and issue 12's targets to stdout, and a chart of the
apx/Uvicorn ratios to bench/results/latest.png (and to docs/ on a full run).

The database rows (db, fortunes, queries-20, updates-5; 64 connections) run on a PostgreSQL
that bench/run starts for them (Debian's postgresql package; initdb into a temp directory, a
free port, TechEmpower's World and Fortune tables) and stops at the end, Ctrl-C included.
--apx-io loop,threads runs apx once per I/O mode (apx:loop, apx:threads) beside the peers.
--peers LIST replaces every row's peers (e.g. uvicorn alone, or granian:st,granian:mt to compare
Granian's runtime modes).
--db-placement pinned,unpinned runs the database rows with PostgreSQL pinned beside wrk and again
with it free to share the server's core (rows NAME@unpinned), re-pinning the one PostgreSQL between.
--warmup-seconds N measures as a user would: a fresh server per row (workload and connection count),
N seconds of load at that count as its only warm-up, then the rounds.
"""
import argparse
import json
import os
import platform
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import answers
from postgres import Postgres, PostgresError
from report import chart, is_apx, is_compared_peer, peers_table, summarise, table, targets, tsv, update_docs

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
APPS = BENCH / "apps"
RESULTS = BENCH / "results"
VENV_PYTHON = ROOT / ".venv" / "bench" / "bin" / "python"
SERVER_CORE = "0"
WRK_CORE = "1"
DSN_VARIABLE = "APX_BENCH_DSN"  # how the database rows' app (bench/apps/db.py) finds bench/run's PostgreSQL
PG_BIN_VARIABLE = "APX_BENCH_PG_BIN"  # where its binaries are (bench/postgres.py also takes it as a setting)


@dataclass(frozen=True)
class Workload:
    name: str
    app: str             # module:attribute in bench/apps
    path: str
    post_bytes: int = 0  # a POST body of this size (bench/wrk/post.lua), else GET
    expect_bytes: int = 0  # the response body size the check insists on
    note: str = ""
    websocket: bool = False  # load with bench/wsload/WsLoad.java: one "request" is one echoed message
    connections: tuple = ()  # fixed connection counts instead of --connections
    body_file: str = ""    # a POST of this file in bench/wrk (bench/wrk/post-file.lua) ...
    content_type: str = ""  # ... with this content type
    check: object = None   # answers.py's check of the answer, instead of expect_bytes
    database: bool = False  # needs bench/run's PostgreSQL (APX_BENCH_DSN)
    interface: str = ""  # apx's and Uvicorn's --interface (wsgi), else the default
    peers: tuple = ("uvicorn", "granian", "hypercorn")  # the servers apx is measured against
    workers: int = 1  # --workers N for both servers (then on every core, beside wrk: no target)
    tls: bool = False        # both servers with --ssl-certfile/--ssl-keyfile (target/bench-certs, made by bench/run)
    h2: bool = False         # load with h2load, 10 streams per connection (Uvicorn, without zttp, is skipped)
    close: bool = False      # "Connection: close": one TLS handshake per request
    min_reps: int = 0        # at least this many repetitions (not with --quick), whatever --reps says
    min_warmup: int = 0      # at least this many seconds of warm-up for apx (not with --quick), whatever --warmup-apx says


WSGI_PEERS = ("gunicorn", "uvicorn", "granian", "hypercorn")
# Granian's runtime mode when a row names plain "granian": "mt" served more req/s on 18 of 26 rows and used
# less CPU per request on 19 than "st", both beside each other in one run (docs/benchmarks-peers.md);
# "granian:st" and "granian:mt" name one explicitly.
GRANIAN_MODE = "mt"
GRANIAN_MODES = ("st", "mt")
# Granian's WSGI threads, as Gunicorn's: its default (up to 512, started on demand) cost ~1.4x the CPU per
# Flask request of 8 on this machine (docs/benchmarks-peers.md)
GRANIAN_WSGI_THREADS = 8

WORKLOADS = [
    Workload("plaintext", "raw:hello", "/", expect_bytes=13),
    # its target is a 3 % difference: 2 rounds on a VM whose speed drifts 10-20 % cannot resolve it, nor rounds
    # taken while C2 still compiles (~4 % of the CPU 20 s into the load; it settles by ~40 s): docs/metrics.md
    Workload("plaintext-metrics", "raw:hello", "/", expect_bytes=13, peers=("apx-metrics",), min_reps=8, min_warmup=40,
             note="apx with --metrics (scraped every second during the run) against apx without: what the metrics cost"),
    Workload("get-10k", "raw:get10k", "/", expect_bytes=10240),
    Workload("echo-4k", "raw:echo", "/", post_bytes=4096, expect_bytes=4096),
    Workload("echo-10k", "raw:echo", "/", post_bytes=10240, expect_bytes=10240),
    Workload("stream-64x1k", "raw:stream", "/", expect_bytes=64 * 1024),
    Workload("sleep-1ms", "raw:sleep", "/", expect_bytes=13),
    Workload("starlette-json", "frameworks:starlette", "/json", expect_bytes=len(b'{"message":"Hello, world!","items":[1,2,3]}')),
    Workload("django-json", "django_app:application", "/json",
             expect_bytes=len(b'{"message": "Hello, world!", "items": [1, 2, 3]}'),
             note="an async Django view returning JsonResponse, no middleware, no database"),
    Workload("fastapi-json", "frameworks:fastapi", "/items/42?q=bench",
             expect_bytes=len(b'{"id":42,"name":"bench","price":9.99,"tags":["a","b"]}')),
    Workload("fastapi-post", "frameworks:fastapi", "/orders", body_file="order.json", content_type="application/json",
             check=answers.same_json, note="a 207-byte JSON order validated into a pydantic model and sent back"),
    Workload("file-50k", "raw:pathsend", "/", expect_bytes=50 * 1024,
             note="apx: http.response.pathsend; Uvicorn (no pathsend): the app reads the file and sends one body"),
    Workload("starlette-file-50k", "frameworks:starlette", "/file", expect_bytes=50 * 1024,
             note="Starlette FileResponse: pathsend on apx, anyio file reads on Uvicorn"),
    # TechEmpower's database test types on PostgreSQL (bench/postgres.py), Starlette + asyncpg (bench/apps/db.py)
    Workload("db", "db:app", "/db", check=answers.worlds_in_database(None), database=True, connections=(64,)),
    Workload("fortunes", "db:app", "/fortunes", check=answers.fortunes, database=True, connections=(64,)),
    Workload("queries-20", "db:app", "/queries?queries=20", check=answers.worlds_in_database(20), database=True,
             connections=(64,)),
    Workload("updates-5", "db:app", "/updates?queries=5", check=answers.worlds_in_database(5), database=True,
             connections=(64,)),
    # apx rows appear once apx serves WebSockets (issue 5); until then only Uvicorn's is measured.
    # WSGI (issue 16): apx --interface wsgi against Gunicorn's threaded worker and Uvicorn --interface wsgi
    Workload("flask-hello", "wsgi_apps:flask", "/", expect_bytes=13, interface="wsgi", peers=WSGI_PEERS,
             note="Gunicorn -k gthread, 1 worker, 8 threads; Uvicorn --interface wsgi (its WSGIMiddleware); "
                  "Granian --interface wsgi; Hypercorn's WSGI support"),
    Workload("flask-json", "wsgi_apps:flask", "/json", interface="wsgi", peers=WSGI_PEERS,
             expect_bytes=len(b'{"items":[1,2,3],"message":"Hello, world!"}\n')),
    Workload("django-wsgi", "wsgi_apps:django_app", "/json", interface="wsgi", peers=WSGI_PEERS,
             expect_bytes=len(b'{"message": "Hello, world!", "items": [1, 2, 3]}')),
    Workload("websocket-echo", "raw:ws_echo", "/", websocket=True, connections=(100,), peers=("uvicorn",),
             note="64-byte text messages echoed, closed loop per connection (bench/wsload/WsLoad.java); req/s = messages/s"),
    # issue 14: a supervisor and 2 worker processes each; CPU is theirs all together
    Workload("plaintext-workers2", "raw:hello", "/", expect_bytes=13, workers=2, peers=("uvicorn",),
             note="--workers 2 for both, on both cores beside wrk (2 cores: no target)"),
    # issue 15: TLS and HTTP/2 (apx's BoringSSL; Uvicorn's Python ssl)
    Workload("https-plaintext", "raw:hello", "/", expect_bytes=13, tls=True, peers=("uvicorn",),
             note="HTTPS/1.1 (TLS 1.3, keep-alive) with wrk; the plaintext row is the same app in cleartext"),
    Workload("h2-plaintext", "raw:hello", "/", expect_bytes=13, h2=True, peers=("uvicorn",),
             note="cleartext h2 (prior knowledge), h2load -m 10: 10 streams per connection; Uvicorn serves no h2. "
                  "h2load gives mean and max latency: p50 shows the mean, p99 the max"),
    Workload("h2-tls-plaintext", "raw:hello", "/", expect_bytes=13, h2=True, tls=True, peers=("uvicorn",),
             note="h2 over TLS (ALPN), h2load -m 10; p50 = mean, p99 = max latency"),
    Workload("tls-handshakes", "raw:hello", "/", expect_bytes=13, tls=True, close=True, peers=("uvicorn",),
             note="Connection: close over HTTPS: a new connection per request, on which wrk resumes its TLS session "
                  "(SSL_clear keeps it); req/s = resumed handshakes/s. Full handshakes: bench/tls-handshakes"),
]
CERTS = ROOT / "target" / "bench-certs"


class BenchFailure(Exception):
    """A server that does not start, answers wrongly or dies: that workload stops, the run goes on."""


@dataclass
class Server:
    name: str
    process: subprocess.Popen
    port: int
    log: Path
    scraper: "Scraper" = None


class Scraper(threading.Thread):
    """Scrapes an apx-metrics server's endpoint once a second, as Prometheus would, while it runs."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.url = f"http://127.0.0.1:{port}/metrics"
        self.scrapes = 0
        self.start()

    def run(self):
        while True:
            time.sleep(1)
            try:
                with urllib.request.urlopen(self.url, timeout=5) as response:
                    response.read()
                self.scrapes += 1
            except OSError:
                pass  # not listening yet, or stopped


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(kind, app, port, ceiling_classes=None, interface="", workers=1, metrics_port=None, tls=False):
    certs = ["--ssl-certfile", str(CERTS / "cert.pem"), "--ssl-keyfile", str(CERTS / "key.pem")] if tls else []
    chosen = ["--interface", interface] if interface else []
    more = ["--workers", str(workers)] if workers > 1 else []
    if kind == "apx-metrics":  # apx's defaults with --metrics on (the plaintext-metrics row)
        return [str(ROOT / "bin" / "apx"), "--python", str(VENV_PYTHON), "--app-dir", str(APPS), "--port", str(port),
                "--no-access-log", "--log-level", "warning", "--metrics", "--metrics-port", str(metrics_port)] + certs + chosen + more + [app]
    if is_apx(kind):  # "apx" (its defaults) or "apx:MODE" (--io MODE)
        io = ["--io", kind.split(":", 1)[1]] if ":" in kind else []
        return [str(ROOT / "bin" / "apx"), "--python", str(VENV_PYTHON), "--app-dir", str(APPS), "--port", str(port),
                "--no-access-log", "--log-level", "warning"] + io + certs + chosen + more + [app]
    if kind == "uvicorn":
        return [str(VENV_PYTHON), "-m", "uvicorn", "--loop", "uvloop", "--http", "httptools", "--app-dir", str(APPS),
                "--port", str(port), "--no-access-log", "--log-level", "warning"] + certs + chosen + more + [app]
    if kind == "granian" or kind.startswith("granian:"):  # one worker, uvloop, a runtime mode (GRANIAN_MODE)
        mode = kind.split(":", 1)[1] if ":" in kind else GRANIAN_MODE
        return [str(VENV_PYTHON), "-m", "granian", "--interface", interface or "asgi", "--workers", str(workers),
                "--loop", "uvloop", "--runtime-mode", mode, "--working-dir", str(APPS), "--host", "127.0.0.1",
                "--port", str(port), "--no-access-log", "--log-level", "warning"] + granian_tls(tls) \
            + (["--blocking-threads", str(GRANIAN_WSGI_THREADS)] if interface == "wsgi" else []) + [app]
    if kind == "hypercorn":  # its uvloop worker; a WSGI app is named "wsgi:module:app" (it runs it in threads)
        return [str(VENV_PYTHON), "-m", "hypercorn", "-k", "uvloop", "-w", str(workers), "--backlog", "2048",
                "-b", f"127.0.0.1:{port}", "--log-level", "warning"] + certs_for_hypercorn(tls) \
            + [f"wsgi:{app}" if interface == "wsgi" else app]
    if kind == "gunicorn":  # the common threaded deployment of a WSGI app, one process as apx's
        return [str(VENV_PYTHON), "-m", "gunicorn", "-k", "gthread", "-w", "1", "--threads", "8", "--chdir", str(APPS),
                "-b", f"127.0.0.1:{port}", "--log-level", "warning", app]
    # the two Java-only ceilings of bench/ceiling/NettyCeiling.java
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java"
    return [str(java), "--enable-native-access=ALL-UNNAMED", "-cp", f"{ceiling_classes}:{ROOT / 'target' / 'apx.jar'}",
            "NettyCeiling", kind, str(port)]


def granian_tls(tls):
    return ["--ssl-certificate", str(CERTS / "cert.pem"), "--ssl-keyfile", str(CERTS / "key.pem")] if tls else []


def certs_for_hypercorn(tls):
    return ["--certfile", str(CERTS / "cert.pem"), "--keyfile", str(CERTS / "key.pem")] if tls else []


def peer_kind_ok(kind):
    """A --peers name bench/run knows."""
    return kind in ("uvicorn", "granian", "hypercorn", "gunicorn") or kind in (f"granian:{m}" for m in GRANIAN_MODES)


def start_server(kind, app, label, ceiling_classes=None, interface="", workers=1, tls=False):
    port = free_port()
    metrics_port = free_port() if kind == "apx-metrics" else None
    log = RESULTS / f"server-{label}-{kind.replace(':', '-')}.log"
    cores = SERVER_CORE if workers == 1 else f"{SERVER_CORE},{WRK_CORE}"
    with open(log, "w") as out:
        # Hypercorn imports the app's module from its working directory (it has no --app-dir)
        process = subprocess.Popen(["taskset", "-c", cores] + server_command(kind, app, port, ceiling_classes, interface, workers, metrics_port, tls),
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                   cwd=APPS if kind == "hypercorn" else None)
    server = Server(kind, process, port, log)
    if metrics_port:
        server.scraper = Scraper(metrics_port)
    return server


def stop_server(server):
    """SIGTERM to the server's whole process group (its own session: workers, a supervisor's children),
    SIGKILL after 15 s; a signal to the first process alone left orphaned peers serving after a run."""
    group = server.process.pid
    if server.process.poll() is None:
        _signal_group(group, signal.SIGTERM)
        try:
            server.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            _signal_group(group, signal.SIGKILL)
            server.process.wait()
    _signal_group(group, signal.SIGKILL)  # whatever of the group outlived its leader


def _signal_group(group, sig):
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        pass


def url(server, workload):
    return f"{'https' if workload.tls else 'http'}://127.0.0.1:{server.port}{workload.path}"


def request_body(workload):
    if workload.body_file:
        return (BENCH / "wrk" / workload.body_file).read_bytes()
    return (bytes(range(256)) * (workload.post_bytes // 256 + 1))[:workload.post_bytes] if workload.post_bytes else None


def request(server, workload, timeout=5.0):
    data = request_body(workload)
    headers = {"Content-Type": workload.content_type} if workload.content_type else {}
    context = ssl.create_default_context(cafile=str(CERTS / "cert.pem")) if workload.tls else None
    with urllib.request.urlopen(urllib.request.Request(url(server, workload), data=data, headers=headers), timeout=timeout,
                                context=context) as response:
        return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read(), data


def wait_ready(server, workload, limit=120.0):
    """Polls until the server answers HTTP (the machine is shared: a JVM can take long to start)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise BenchFailure(f"{server.name} exited with {server.process.returncode}; see {server.log}:\n"
                             + server.log.read_text()[-2000:])
        try:
            request(server, workload, timeout=2.0)
            return
        except urllib.error.HTTPError:
            return  # it answered; check_answer judges the answer
        except OSError:
            time.sleep(0.2)
    raise BenchFailure(f"{server.name} did not answer within {limit:.0f} s; see {server.log}")


def wsload(server, workload, options, *arguments):
    """bench/wsload/WsLoad.java (Netty, one event-loop thread) on the load core."""
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java"
    return subprocess.run(["taskset", "-c", WRK_CORE, str(java), "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC",
                           "-cp", f"{options.wsload_classes}:{ROOT / 'target' / 'apx.jar'}", "WsLoad",
                           f"ws://127.0.0.1:{server.port}{workload.path}", *arguments],
                          capture_output=True, text=True, timeout=120)


def check_answer(server, workload, options):
    """The right status and body size (for echo, the same bytes; for the rows with a check, what
    answers.py says) before anything is measured."""
    if workload.websocket:
        checked = wsload(server, workload, options, "--check")
        if checked.returncode != 0:
            if server.name == "apx":
                return f"apx serves no WebSocket echo here ({checked.stderr.strip()[-200:]})"
            raise BenchFailure(f"{server.name} failed the WebSocket echo check: {checked.stderr}")
        return None
    if workload.h2 and server.name == "uvicorn":
        return "Uvicorn serves no HTTP/2 here (httptools; its experimental h2 needs the zttp package)"
    try:
        status, headers, body, sent = request(server, workload)
    except OSError as e:
        raise BenchFailure(f"{server.name} did not answer {workload.name}: {e}; see {server.log}")
    if workload.check:
        problem = f"status {status}" if status != 200 else workload.check(headers, body, sent, os.environ.get(DSN_VARIABLE))
        if problem:
            raise BenchFailure(f"{server.name} answered {workload.name} wrongly: {problem}; see {server.log}")
        return None
    if status != 200 or len(body) != workload.expect_bytes or (sent is not None and body != sent):
        raise BenchFailure(f"{server.name} answered {workload.name} with status {status} and {len(body)} bytes "
                         f"(expected 200 and {workload.expect_bytes}); see {server.log}")
    return None


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def _ms(text):
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * _UNITS[unit]


def parse_wrk(output):
    """requests/s, latency percentiles (ms) and errors from `wrk --latency` output."""
    result = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))}
    for percent in ("50", "75", "90", "99"):
        result[f"p{percent}_ms"] = _ms(re.search(rf"^\s+{percent}%\s+(\S+)", output, re.M).group(1))
    requests = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m),", output)
    result["requests"] = int(requests.group(1))
    result["duration_s"] = _ms(requests.group(2) + requests.group(3)) / 1000
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    result["socket_errors"] = sum(int(n) for n in socket_errors.groups()) if socket_errors else 0
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    result["non_2xx"] = int(non_2xx.group(1)) if non_2xx else 0
    result["errors"] = result["socket_errors"] + result["non_2xx"]
    return result


def cpu_seconds(server):
    """User + system CPU time of the server process so far (all its threads), with its worker processes' (--workers)."""
    return sum(_cpu_ticks(f"/proc/{pid}/stat")[1] for pid in _server_pids(server)) / os.sysconf("SC_CLK_TCK")


def _server_pids(server):
    """The server's process, then its descendants (a supervisor's workers), as /proc lists them now."""
    pids = [server.process.pid]
    while pids:
        pid = pids.pop()
        yield pid
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    pids.extend(int(child) for child in f.read().split())
        except (FileNotFoundError, ProcessLookupError):
            pass  # a worker that just exited


def _cpu_ticks(stat_path):
    """(name, utime + stime in clock ticks) from a /proc stat file; ("", 0) once the process or thread is gone."""
    try:
        with open(stat_path) as f:
            name, fields = f.read().split("(", 1)[1].rsplit(")", 1)
    except (FileNotFoundError, ProcessLookupError):
        return "", 0
    fields = fields.split()
    return name, int(fields[11]) + int(fields[12])


def context_switches(server):
    """Voluntary + involuntary context switches of the server's threads so far, with its worker processes'
    (Granian, Hypercorn and Gunicorn serve from a child; a thread that ended takes its count with it; the
    servers keep theirs for their life)."""
    total = 0
    for pid in _server_pids(server):
        tasks = f"/proc/{pid}/task"
        try:
            names = os.listdir(tasks)
        except (FileNotFoundError, ProcessLookupError):
            continue
        for task in names:
            try:
                with open(f"{tasks}/{task}/status") as f:
                    total += sum(int(line.split()[1]) for line in f
                                 if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")))
            except (FileNotFoundError, ProcessLookupError):
                pass
    return total


def load(server, workload, connections, seconds, options):
    """One measurement: wrk, or WsLoad for WebSocket workloads; with the server's CPU share, and its
    CPU time and context switches per request over the measured window."""
    cpu_before, switches_before, began = cpu_seconds(server), context_switches(server), time.monotonic()
    if workload.websocket:
        # WsLoad measures the server's CPU itself, over its measured window only (not its JVM's
        # start-up and 1-s warm-up, during which the server is idle or loaded unmeasured).
        finished = wsload(server, workload, options, "--connections", str(connections), "--duration", str(seconds),
                          "--cpu-pid", str(server.process.pid), "--clock-ticks", str(os.sysconf("SC_CLK_TCK")))
        if finished.returncode != 0:
            raise BenchFailure(f"bench/wsload/WsLoad.java failed against {server.name}: {finished.stderr[-2000:]}")
        result = json.loads(finished.stdout)
    elif workload.h2:
        result = h2load(server, workload, connections, seconds)
    else:
        result = wrk(server, workload, connections, seconds)
    if server.process.poll() is not None:
        raise BenchFailure(f"{server.name} died during {workload.name}; see {server.log}")
    if "server_cpu_pct" in result:  # WsLoad's own window (its client's start and warm-up left out)
        result["server_cpu_s"] = result["server_cpu_pct"] / 100 * result["duration_s"]
    else:
        result["server_cpu_s"] = cpu_seconds(server) - cpu_before
        result["server_cpu_pct"] = 100 * result["server_cpu_s"] / (time.monotonic() - began)
    if "server_ctx_switches" not in result:
        result["server_ctx_switches"] = context_switches(server) - switches_before
    requests = max(result["requests"], 1)
    result["cpu_us_per_req"] = 1e6 * result["server_cpu_s"] / requests
    result["ctx_per_req"] = result["server_ctx_switches"] / requests
    return result


def wrk(server, workload, connections, seconds):
    # --timeout 10s: wrk's default (2 s) drops slower responses from the percentiles and counts
    # them as errors; at 256 connections on a busy core a slow server's p99 is past 2 s.
    command = ["taskset", "-c", WRK_CORE, "wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "--latency"]
    if workload.post_bytes:
        command += ["-s", str(BENCH / "wrk" / "post.lua")]
    elif workload.body_file:
        command += ["-s", str(BENCH / "wrk" / "post-file.lua")]
    if workload.close:
        command += ["-H", "Connection: close"]
    command.append(url(server, workload))
    if workload.post_bytes:
        command += ["--", str(workload.post_bytes)]
    elif workload.body_file:
        command += ["--", str(BENCH / "wrk" / workload.body_file), workload.content_type]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    if finished.returncode != 0 or "Requests/sec" not in finished.stdout:
        raise BenchFailure(f"wrk failed against {server.name}: {finished.stdout}{finished.stderr}")
    return parse_wrk(finished.stdout)


def h2load(server, workload, connections, seconds):
    """h2load (nghttp2-client), 10 concurrent streams per connection; its latencies are mean and max only."""
    command = ["taskset", "-c", WRK_CORE, "h2load", "-t1", f"-c{connections}", "-m10", f"-D{seconds}", url(server, workload)]
    try:
        finished = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    except subprocess.TimeoutExpired as e:  # h2load waits for streams in flight after -D ends
        raise BenchFailure(f"h2load did not finish against {server.name} within {seconds + 60} s: {e.stdout}")
    output = finished.stdout
    match = re.search(r"finished in ([\d.]+)(us|ms|s|m), ([\d.]+) req/s", output)
    if finished.returncode != 0 or not match:
        raise BenchFailure(f"h2load failed against {server.name}: {output}{finished.stderr}")
    done = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored", output)
    latency = re.search(r"time for request:\s+(\S+)\s+(\S+)\s+(\S+)", output)
    non_2xx = re.search(r"status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", output)
    errors = int(done.group(4)) + int(done.group(5)) + sum(int(n) for n in non_2xx.groups())
    return {"rps": float(match.group(3)), "p50_ms": _ms(latency.group(3)), "p75_ms": _ms(latency.group(3)),
            "p90_ms": _ms(latency.group(2)), "p99_ms": _ms(latency.group(2)), "requests": int(done.group(3)),
            "duration_s": _ms(match.group(1) + match.group(2)) / 1000, "socket_errors": 0, "non_2xx": errors,
            "errors": errors}


def warm_up(server, workload, options, counts):
    """With --warmup-seconds N: N s of load at the row's connection count and nothing more, for every
    server alike (a fresh server per row, as a user who benchmarks it sees it). Otherwise: load for the minimum warm-up, then in 2-s slices until two in a row agree within 10 % and, for a
    JVM, its JIT compilers used under 2 % of the last slice (C2 goes on compiling for tens of seconds
    after the req/s look flat: docs/benchmarks.md), up to 2 × the minimum (at least 60 s for a JVM).
    Returns the seconds spent."""
    if options.warmup_seconds is not None:
        if options.warmup_seconds > 0:
            load(server, workload, max(counts), options.warmup_seconds, options)
        return options.warmup_seconds
    jvm = is_apx(server.name) or server.name == "apx-metrics"
    minimum = options.warmup_apx if jvm else options.warmup_uvicorn
    if jvm and not options.quick:
        minimum = max(minimum, workload.min_warmup)
    if minimum <= 0:
        return 0
    began = time.monotonic()
    load(server, workload, max(counts), minimum, options)
    limit = max(2 * minimum, 60 if jvm and not options.quick else 0) - 1
    previous = None
    while time.monotonic() - began < limit:
        # a slice at every connection count the rounds use: each new count (a new wrk, its connections
        # opened and closed) makes C2 deoptimize some of what it compiled for the last one
        compiling = compiler_seconds(server)
        rates = [load(server, workload, connections, 2, options)["rps"] for connections in counts]
        quiet = compiler_seconds(server) - compiling < 0.02 * 2 * len(counts)
        if previous is not None and quiet and all(abs(a - b) <= 0.1 * max(a, b) for a, b in zip(rates, previous)):
            break
        previous = rates
    return round(time.monotonic() - began)


def compiler_seconds(server):
    """CPU time of the JIT compiler threads in the server's processes so far; 0 for others."""
    return jit_cpu_seconds(server.process.pid, _server_pids(server))


_compiler_ticks = {}  # (root pid, pid, tid) -> CPU ticks last read: a compiler thread that has exited keeps its count


def jit_cpu_seconds(root, pids):
    """CPU time of the JIT compiler threads (HotSpot's "C1/C2 CompilerThread") in pids so far, counted for
    root, including those that have exited since an earlier call (HotSpot stops an extra C2 thread once
    its queue is short; without this its CPU would vanish from the sum). bench/coldstart uses it too."""
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except (FileNotFoundError, ProcessLookupError):
            continue
        for task in tasks:
            name, ticks = _cpu_ticks(f"/proc/{pid}/task/{task}/stat")
            if "CompilerThre" in name:
                _compiler_ticks[root, pid, task] = ticks
    return sum(ticks for (owner, _, _), ticks in _compiler_ticks.items() if owner == root) / os.sysconf("SC_CLK_TCK")


def measure_group(label, servers, workload, options, runs, counts=None):
    """Warm-up, then REPS rounds of every connection count (counts, else the workload's), servers alternating within a round."""
    counts = counts or workload.connections or options.connections
    warmups = {}
    for server in list(servers):
        wait_ready(server, workload)
        skipped = check_answer(server, workload, options)
        if skipped:
            print(f"  {label:<20} skipped: {skipped}", flush=True)
            servers.remove(server)
            continue
        warmups[server.name] = warm_up(server, workload, options, counts)
    reps = options.reps if options.quick else max(options.reps, workload.min_reps)
    for rep in range(1, reps + 1):
        for connections in counts:
            for server in servers:
                result = load(server, workload, connections, options.duration, options)
                result.update(workload=label, connections=connections, server=server.name, rep=rep,
                              warmup_s=warmups[server.name], loadavg=os.getloadavg()[0])
                runs.append(result)
                print(f"  {label:<20} c={connections:<4} {server.name:<11} rep {rep}: {result['rps']:>10,.0f} req/s  "
                      f"p50 {result['p50_ms']:.2f} ms  p99 {result['p99_ms']:.2f} ms  errors {result['errors']}  "
                      f"server CPU {result['server_cpu_pct']:.0f} %  {result['cpu_us_per_req']:.0f} µs/req  "
                      f"{result['ctx_per_req']:.3f} cs/req", flush=True)


def command_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java"
    versions = command_output([str(VENV_PYTHON), "-c", "import importlib.metadata as m, sys; print(sys.version.split()[0], *["
                               "f'{p}=' + m.version(p) for p in ('uvicorn','granian','hypercorn','gunicorn','uvloop','httptools','websockets',"
                               "'starlette','fastapi','pydantic','django','flask','asyncpg','jinja2')])"])
    return {"nproc": os.cpu_count(), "cpu": cpu, "kernel": platform.release(),
            "java": subprocess.run([str(java), "-version"], capture_output=True, text=True).stderr.splitlines()[0],
            "python_and_packages": versions,
            "wrk": command_output(["wrk", "-v"]).splitlines()[0] if command_output(["wrk", "-v"]) else "?",
            "apx": command_output([str(ROOT / "bin" / "apx"), "--version"]),
            "git": command_output(["git", "-C", str(ROOT), "describe", "--always", "--dirty"]),
            "postgres": command_output([str(Path(os.environ[PG_BIN_VARIABLE]) / "postgres"), "--version"]) if PG_BIN_VARIABLE in os.environ else None}


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/run", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=int, default=3, help="seconds per measurement (default 3)")
    p.add_argument("--reps", type=int, default=2, help="repetitions per server and connection count (default 2)")
    p.add_argument("--connections", default="50,256", help="comma-separated connection counts (default 50,256)")
    p.add_argument("--warmup-apx", type=int, default=10, help="minimum seconds of load before measuring apx and the ceilings (default 10)")
    p.add_argument("--warmup-uvicorn", type=int, default=2, help="minimum seconds of load before measuring Uvicorn (default 2)")
    p.add_argument("--only", default="", help="a regular expression: run the workloads whose name matches")
    p.add_argument("--no-ceiling", action="store_true", help="skip the Java-only plaintext ceilings")
    p.add_argument("--quick", action="store_true", help="a smoke run: 3 s, 1 repetition, 3 s warm-up, 50 connections (unless given)")
    p.add_argument("--docs", action=argparse.BooleanOptionalAction, default=None,
                   help="write the table into docs/benchmarks.md and the chart to docs/ (default: on for a full run)")
    p.add_argument("--warmup-curve", type=int, metavar="SECONDS",
                   help="instead of the benchmark: req/s of each fresh server second by second, to choose the warm-up")
    p.add_argument("--render", metavar="RESULTS_JSON",
                   help="measure nothing: print the table, targets and chart of an earlier run's latest.json "
                        "(with --docs, also into docs/)")
    p.add_argument("--peers", metavar="LIST", default="",
                   help="comma-separated servers to run beside apx on every row instead of each row's own (uvicorn, "
                        f"granian, granian:st, granian:mt, hypercorn, gunicorn; plain granian is --runtime-mode {GRANIAN_MODE}); "
                        "the plaintext-metrics row keeps its own")
    p.add_argument("--apx-io", metavar="MODES", default="",
                   help="comma-separated apx I/O modes (apx --io: loop, threads): apx runs once per mode, shown as "
                        "apx:MODE, beside Uvicorn in the same run (default: one apx with its default mode, shown as apx)")
    p.add_argument("--db-core", metavar="CPUS", default=WRK_CORE,
                   help=f"the database rows' PostgreSQL: a taskset CPU list, or 'any' to leave it unpinned "
                        f"(default {WRK_CORE}: beside wrk, so the server keeps core {SERVER_CORE} alone)")
    p.add_argument("--db-placement", metavar="PLACEMENTS", default="pinned",
                   help="comma-separated: pinned (PostgreSQL on --db-core), unpinned (on every core, sharing the "
                        "server's; rows shown as NAME@unpinned); 'pinned,unpinned' runs the database rows in both")
    p.add_argument("--warmup-seconds", type=int, metavar="N",
                   help="a fresh server per row (workload and connection count), N s of load at that count as its "
                        "only warm-up (apx and Uvicorn alike), then the rounds: what a user who benchmarks it sees")
    p.add_argument("--ceiling-classes", help=argparse.SUPPRESS)
    p.add_argument("--wsload-classes", help=argparse.SUPPRESS)
    options = p.parse_args(argv)
    if options.quick:  # smaller defaults; flags given explicitly still win
        for name, quick in (("duration", 3), ("reps", 1), ("warmup_apx", 3), ("warmup_uvicorn", 1), ("connections", "50")):
            if getattr(options, name) == p.get_default(name):
                setattr(options, name, quick)
    options.connections = [int(c) for c in options.connections.split(",")]
    modes = [m for m in options.apx_io.split(",") if m]
    if any(m not in ("loop", "threads") for m in modes) or len(set(modes)) != len(modes):
        p.error(f"--apx-io takes distinct modes out of loop, threads: {options.apx_io!r}")
    options.apx_kinds = [f"apx:{m}" for m in modes] or ["apx"]
    options.peers = [k for k in options.peers.split(",") if k]
    if any(not peer_kind_ok(k) for k in options.peers) or len(set(options.peers)) != len(options.peers):
        p.error(f"--peers takes distinct servers out of uvicorn, granian, granian:st, granian:mt, hypercorn, "
                f"gunicorn: {','.join(options.peers)!r}")
    options.db_placements = [p_ for p_ in options.db_placement.split(",") if p_]
    if not options.db_placements or any(p_ not in ("pinned", "unpinned") for p_ in options.db_placements) \
            or len(set(options.db_placements)) != len(options.db_placements):
        p.error(f"--db-placement takes distinct placements out of pinned, unpinned: {options.db_placement!r}")
    if options.warmup_seconds is not None and options.warmup_seconds < 0:
        p.error("--warmup-seconds must be 0 or more")
    if options.docs is None:
        options.docs = not options.render and not options.quick and not options.only and not options.apx_io \
            and not options.peers \
            and options.reps >= 2 and options.connections == [50, 256] and options.warmup_seconds is None \
            and options.db_placements == ["pinned"]
    if options.duration < 1 or options.reps < 1 or any(c < 1 for c in options.connections):
        p.error("--duration, --reps and --connections must be positive")
    return options


def warmup_curve(workloads, options):
    """Each server fresh, loaded in 1-second wrk slices: where the req/s stop climbing is the warm-up needed."""
    for workload in workloads:
        for kind in options.apx_kinds + ["uvicorn"]:
            server = start_server(kind, workload.app, workload.name, workers=workload.workers)
            try:
                wait_ready(server, workload)
                started = time.monotonic()
                connections = max(workload.connections or options.connections)
                rates = [load(server, workload, connections, 1, options)["rps"] for _ in range(options.warmup_curve)]
                print(f"{workload.name:<20} {kind:<8} 1-s slices over {time.monotonic() - started:.0f} s: "
                      + " ".join(f"{r:.0f}" for r in rates), flush=True)
            finally:
                stop_server(server)


def placement_core(options, placement):
    """The database's taskset CPU list in a placement, None for every CPU."""
    return None if placement == "unpinned" or options.db_core == "any" else options.db_core


def start_database(options):
    """bench/run's own PostgreSQL for the database rows, its DSN in APX_BENCH_DSN for the servers."""
    began = time.monotonic()
    database = Postgres(RESULTS / "postgres.log", core=placement_core(options, options.db_placements[0])).start()
    os.environ[DSN_VARIABLE] = database.dsn
    os.environ[PG_BIN_VARIABLE] = str(database.bin)
    print(f"bench: PostgreSQL ({database.bin.parent.name}) on 127.0.0.1:{database.port}, "
          f"{'core ' + database.core if database.core else 'unpinned'}, ready with its data in "
          f"{time.monotonic() - began:.0f} s; log in {database.log}", flush=True)
    return database


def main(argv):
    options = parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    if options.render:
        saved = json.loads(Path(options.render).read_text())
        rows = summarise(saved["runs"])
        print(table(rows) + "\n\nIssue 12's targets in this run:\n" + targets(rows))
        if any(is_compared_peer(r["server"]) for r in rows):
            print("\nEach server: req/s, p50 / p99, CPU per request:\n" + peers_table(rows))
        chart(rows, RESULTS / "latest.png")
        print(f"bench: chart in {RESULTS / 'latest.png'}")
        if options.docs:
            update_docs(rows, saved["machine"], saved["settings"])
        return
    selected = [w for w in WORKLOADS if re.search(options.only, w.name)]
    # SIGTERM too ends the run through the finally blocks: servers and the database stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    database = None
    try:
        if any(w.database for w in selected):
            try:
                database = start_database(options)
            except PostgresError as e:
                sys.exit(f"bench: {e}")
        if options.warmup_curve:
            try:
                warmup_curve(selected, options)
            except BenchFailure as failure:
                sys.exit(f"bench: {failure}")
            return
        benchmark(selected, options, database)
    finally:
        if database:
            database.stop()
            print("bench: PostgreSQL stopped", flush=True)


def placed(selected, options):
    """(label, workload, placement) in run order: the database rows once per placement, after the rest."""
    rows = [(w.name, w, None) for w in selected if not w.database]
    for placement in options.db_placements:
        rows += [(w.name + ("@unpinned" if placement == "unpinned" else ""), w, placement) for w in selected if w.database]
    return rows


def peers_of(workload, options):
    """The row's peers, or --peers (the plaintext-metrics row keeps its apx-metrics)."""
    return list(workload.peers) if not options.peers or "apx-metrics" in workload.peers else options.peers


def benchmark(selected, options, database=None):
    began = time.monotonic()
    loadavg_start = os.getloadavg()[0]
    runs = []
    failures = []
    fixed = sorted({c for w in selected for c in w.connections})
    warmup = (f"a fresh server per row, {options.warmup_seconds} s of load as its warm-up" if options.warmup_seconds is not None
              else f"warm-up {options.warmup_apx} s apx / {options.warmup_uvicorn} s Uvicorn")
    print(f"bench: {len(selected)} workload(s), connections {options.connections}"
          f"{f' (some rows fixed at {fixed})' if fixed else ''}, {options.reps} × {options.duration} s, "
          f"{warmup}; load average {loadavg_start:.2f}", flush=True)
    if not options.no_ceiling and re.search(options.only, "plaintext-ceiling"):
        ceiling = Workload("plaintext-ceiling", "", "/", expect_bytes=13)
        for kind in ("netty", "apx-server"):
            server = start_server(kind, "", "ceiling", options.ceiling_classes)
            try:
                measure_group("plaintext-ceiling", [server], ceiling, options, runs)
            except BenchFailure as failure:
                failures.append(f"plaintext-ceiling {kind}: {failure}")
                print(f"  plaintext-ceiling    FAILED: {failure}", flush=True)
            finally:
                stop_server(server)
    for label, workload, placement in placed(selected, options):
        if placement and database.core != placement_core(options, placement):
            database.place(placement_core(options, placement))
            print(f"bench: PostgreSQL moved to {'core ' + database.core if database.core else 'every core'}", flush=True)
        counts = workload.connections or options.connections
        # --warmup-seconds: a fresh pair of servers per connection count, as a user's benchmark starts them
        for group in ([[c] for c in counts] if options.warmup_seconds is not None else [counts]):
            servers = [start_server(kind, workload.app, label, interface=workload.interface, workers=workload.workers,
                                    tls=workload.tls) for kind in options.apx_kinds + peers_of(workload, options)]
            try:
                measure_group(label, list(servers), workload, options, runs, group)  # it drops the servers it skips: stop them all
            except BenchFailure as failure:
                failures.append(f"{label}: {failure}")
                print(f"  {label:<20} FAILED: {failure}", flush=True)
            finally:
                for server in servers:
                    stop_server(server)
    rows = summarise(runs)
    settings = {"duration": options.duration, "reps": options.reps, "connections": options.connections,
                "warmup_apx": options.warmup_apx, "warmup_uvicorn": options.warmup_uvicorn, "only": options.only,
                "apx_io": options.apx_io, "peers": options.peers, "db_core": options.db_core if any(w.database for w in selected) else None,
                "db_placements": options.db_placements if any(w.database for w in selected) else None,
                "warmup_seconds": options.warmup_seconds,
                "loadavg_start": loadavg_start, "failures": failures, "loadavg_end": os.getloadavg()[0],
                "elapsed_s": time.monotonic() - began, "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "notes": {w.name: w.note for w in selected if w.note}}
    facts = machine()
    (RESULTS / "latest.json").write_text(json.dumps({"settings": settings, "machine": facts, "rows": rows, "runs": runs},
                                                    indent=1) + "\n")
    (RESULTS / "latest.tsv").write_text(tsv(rows))
    print()
    print(table(rows))
    if any(is_compared_peer(r["server"]) for r in rows):
        print("\nEach server: req/s, p50 / p99, CPU per request:\n" + peers_table(rows))
    if any(r.get("ratio") is not None for r in rows):
        print("\nIssue 12's targets in this run:\n" + targets(rows))
    print(f"\nbench: {settings['elapsed_s'] / 60:.1f} min; load average {loadavg_start:.2f} -> {settings['loadavg_end']:.2f}; "
          f"results in {RESULTS / 'latest.json'} and latest.tsv")
    if any(r.get("ratio") is not None for r in rows):
        chart(rows, RESULTS / "latest.png")
    if failures:
        print("bench: FAILED, nothing measured for:\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)
    if options.docs:
        update_docs(rows, facts, settings)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:  # Ctrl-C: the finally blocks have stopped the servers and the database
        sys.exit("bench: interrupted")
