"""bench/metrics/run's driver: apx --metrics, a real Prometheus scraping it every second, wrk load in
phases, then Prometheus's HTTP API for every apx series and a PNG of four of them over the run.

Phases (each SECONDS long, argv[1], default 20): idle, plaintext, /cpu (a handler that computes for
2 ms without awaiting: the loop lags, the GIL is busy), plaintext again, idle. apx runs on core 0,
wrk and Prometheus on core 1.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
RESULTS = ROOT / "bench" / "results"
PNG = ROOT / "docs" / "metrics-prometheus.png"

# Every apx series docs/metrics.md lists (name as Prometheus stores it), and a few of the JVM's.
SERIES = [
    "apx_http_requests_total", "apx_http_request_duration_seconds_bucket", "apx_http_request_body_bytes_total",
    "apx_http_response_body_bytes_total", "apx_http_requests_in_flight", "apx_http_connections_open",
    "apx_http_connections_total", "apx_http_rejected_requests_total",
    "apx_websocket_sessions_open", "apx_websocket_sessions_total", "apx_websocket_messages_total",
    "apx_bridge_hops_bucket", "apx_bridge_suspensions_bucket", "apx_bridge_coroutines_total",
    "apx_bridge_coroutines_in_flight", "apx_bridge_step_lock_waits_total", "apx_bridge_enter_task_collisions_total",
    "apx_bridge_stalls_total", "apx_bridge_pokes_total", "apx_bridge_loop_errors_total", "apx_bridge_slow_drives_total",
    "apx_python_gil_wait_seconds_bucket", "apx_python_loop_lag_seconds_bucket", "apx_python_loop_ready_callbacks",
    "apx_python_tasks", "apx_python_gc_collections_total", "apx_python_gc_pause_seconds_total",
    "jvm_memory_used_bytes", "jvm_gc_collection_seconds_count", "jvm_threads_current", "process_cpu_seconds_total",
]

PLOTS = [
    ("requests/s", 'sum(rate(apx_http_requests_total[5s]))', "req/s"),
    ("p99 request duration", 'histogram_quantile(0.99, sum by (le) (rate(apx_http_request_duration_seconds_bucket[5s])))', "ms"),
    ("p99 GIL wait (probe thread)",
     'histogram_quantile(0.99, sum by (le) (rate(apx_python_gil_wait_seconds_bucket{thread="probe"}[5s])))', "ms"),
    ("p99 event loop lag", 'histogram_quantile(0.99, sum by (le) (rate(apx_python_loop_lag_seconds_bucket[5s])))', "ms"),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def wait_until(check, what, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.5)
    sys.exit(f"bench/metrics: {what} did not happen within {seconds} s")


def query(prometheus, expression, at=None):
    params = {"query": expression}
    if at:
        params["time"] = f"{at:.3f}"
    return get_json(f"{prometheus}/api/v1/query?{urllib.parse.urlencode(params)}")["data"]["result"]


def query_range(prometheus, expression, start, end):
    params = {"query": expression, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": "1"}
    result = get_json(f"{prometheus}/api/v1/query_range?{urllib.parse.urlencode(params)}")["data"]["result"]
    return [(float(t), float(v)) for t, v in result[0]["values"]] if result else []


def rarer_cases(port):
    """A 404, a handler that suspends and a request the server refuses, so those series have samples too."""
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/missing", timeout=5)
    except urllib.error.HTTPError:
        pass
    urllib.request.urlopen(f"http://127.0.0.1:{port}/sleep", timeout=5).read()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as refused:
        refused.sendall(b"GARBAGE\r\n\r\n")
        refused.recv(1024)


def main():
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    RESULTS.mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="apx-metrics-bench-"))
    app_port, metrics_port, prometheus_port = free_port(), free_port(), free_port()
    prometheus = f"http://127.0.0.1:{prometheus_port}"
    processes = []
    try:
        apx_log = open(RESULTS / "metrics-apx.log", "w")
        processes.append(subprocess.Popen(
            ["taskset", "-c", "0", str(ROOT / "bin" / "apx"), "--python", str(Path(sys.executable)), "--app-dir",
             str(ROOT / "bench" / "metrics"), "--port", str(app_port), "--no-access-log", "--log-level", "warning",
             "--slow-callback-duration", "0", "--metrics", "--metrics-port", str(metrics_port), "app:app"],
            stdout=apx_log, stderr=subprocess.STDOUT, start_new_session=True))
        (work / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            f"scrape_configs:\n  - job_name: apx\n    static_configs:\n      - targets: ['127.0.0.1:{metrics_port}']\n")
        prometheus_log = open(RESULTS / "metrics-prometheus.log", "w")
        processes.append(subprocess.Popen(
            ["taskset", "-c", "1", "prometheus", f"--config.file={work / 'prometheus.yml'}",
             f"--storage.tsdb.path={work / 'data'}", f"--web.listen-address=127.0.0.1:{prometheus_port}"],
            stdout=prometheus_log, stderr=subprocess.STDOUT, start_new_session=True))
        wait_until(lambda: urllib.request.urlopen(f"http://127.0.0.1:{app_port}/", timeout=2).status == 200, "apx answering")
        wait_until(lambda: any(t["health"] == "up" for t in get_json(f"{prometheus}/api/v1/targets")["data"]["activeTargets"]),
                   "Prometheus scraping apx")
        load_average = os.getloadavg()[0]
        began = time.time()
        phases = [("idle", None), ("plaintext", "/"), ("/cpu (2 ms sync)", "/cpu"), ("plaintext", "/"), ("idle", None)]
        marks = []
        for name, path in phases:
            marks.append((time.time(), name))
            print(f"bench/metrics: {name} for {seconds} s", flush=True)
            if path is None:
                time.sleep(seconds)
            else:
                # bounded: one run on a machine at load average 20 never came back from this phase
                subprocess.run(["taskset", "-c", "1", "wrk", "-t1", "-c50", "--timeout", "5s", f"-d{seconds}s",
                                f"http://127.0.0.1:{app_port}{path}"], check=True, stdout=subprocess.DEVNULL, timeout=seconds + 60)
        rarer_cases(app_port)
        time.sleep(3)  # a last scrape after the load
        ended = time.time()

        lines = [f"# bench/metrics/run: Prometheus {prometheus} scraped apx every 1 s, {len(phases)} phases of {seconds} s; "
                 f"load average {load_average:.2f} -> {os.getloadavg()[0]:.2f}"]
        missing = []
        for name in SERIES:
            result = query(prometheus, name, ended)
            lines.append(f"{name}: {len(result)} series" + (f", e.g. {result[0]['metric']} = {result[0]['value'][1]}" if result else ""))
            if not result and name != "apx_python_loop_ready_callbacks":  # absent with uvloop, by design
                missing.append(name)
        (RESULTS / "metrics-series.txt").write_text("\n".join(lines) + "\n")
        print("\n".join(lines))

        figure, axes = plt.subplots(len(PLOTS), 1, figsize=(9, 10), sharex=True)
        for axis, (title, expression, unit) in zip(axes, PLOTS):
            points = query_range(prometheus, expression, began, ended)
            scale = 1000 if unit == "ms" else 1
            axis.plot([t - began for t, _ in points], [v * scale for _, v in points], linewidth=1.2)
            axis.set_title(title, fontsize=10, loc="left")
            axis.set_ylabel(unit)
            axis.grid(alpha=0.3)
            for at, name in marks:
                axis.axvline(at - began, color="grey", linewidth=0.6, linestyle=":")
        for at, name in marks:
            axes[0].annotate(name, (at - began + 0.5, 1.0), xycoords=("data", "axes fraction"), fontsize=8,
                             va="top", color="dimgrey")
        axes[-1].set_xlabel(f"seconds (wrk -c50 on 127.0.0.1; apx on core 0, wrk + Prometheus on core 1; "
                            f"load average {load_average:.1f})")
        figure.suptitle("apx --metrics, as a Prometheus server scraped it (1 s interval, 5 s rate windows)", fontsize=11)
        figure.tight_layout()
        figure.savefig(PNG, dpi=90)
        print(f"bench/metrics: plot in {PNG}; series in {RESULTS / 'metrics-series.txt'}")
        if missing:
            sys.exit("bench/metrics: Prometheus has no data for: " + ", ".join(missing))
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
