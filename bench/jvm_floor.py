"""apx --interpreters N's memory by JVM option, A/B in alternating rounds: run by bench/jvm-floor.

Each VARIANT is "name|APX_JAVA_OPTS|ENV=VALUE ...|apx args|apx checkout" (the last four optional; the
checkout, a directory with bin/apx, defaults to this one), or "uvicorn"
(Uvicorn --workers N on the same app, the issue's yardstick). Per round every variant in turn, on
bench/apps/runtimes.py (FastAPI) as bench/interpreters serves it: start, wait until every runtime
answered, total PSS of the process tree 1 s and 6 s later (the JVM trims malloc every 5 s), wrk -t2 -c64
for --load-seconds (req/s, the tree's CPU-us per request), PSS 3 s before its end ("during"), right after
and 6 s after. Medians per
variant at the end. --breakdown NAME: one more start of that variant with native memory tracking, its
/proc/PID/smaps summed by mapping (the JVM's own mappings named by NMT) idle and after load, and NMT's
summary. Figures: docs/interpreters.md, "Memory: the JVM's floor".
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interpreters import ROOT, Server, apx_command, free_port, uvicorn_command, wrk  # noqa: E402


def parse_variant(spec):
    name, opts, env, args, checkout = (spec.split("|") + ["", "", "", ""])[:5]
    return {"name": name, "opts": opts, "env": dict(kv.split("=", 1) for kv in shlex.split(env)), "args": shlex.split(args),
            "checkout": checkout}


def start(variant, count, port, extra_opts=""):
    if variant["name"].startswith("uvicorn"):
        return Server(variant["name"], uvicorn_command(port, count, variant["args"]), port)
    env = dict(variant["env"], APX_JAVA_OPTS=" ".join(o for o in (variant["opts"], extra_opts) if o))
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # Server() starts the child with this process's environment
    try:
        command = apx_command(port, count, variant["args"])
        if variant["checkout"]:
            command[0] = str(Path(variant["checkout"]) / "bin" / "apx")
        return Server(variant["name"], command, port)
    finally:
        for k, value in saved.items():
            if value is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = value


def java_pid(server):
    for pid in server.tree():
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "java":
                return pid
        except OSError:
            pass
    return None


def one_round(variant, count, load_seconds):
    port = free_port()
    server = start(variant, count, port)
    try:
        server.wait_first_200()
        server.wait_runtimes(count)
        row = {}
        time.sleep(1)
        row["idle1"] = server.pss_mb()
        time.sleep(5)
        row["idle6"] = server.pss_mb()
        before = server.cpu_seconds()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            load = pool.submit(wrk, port, load_seconds)
            time.sleep(max(load_seconds - 3, 1))
            row["during"] = server.pss_mb()  # under load: wrk still running
            rate, requests, errors = load.result()
        used = server.cpu_seconds() - before
        row["load0"] = server.pss_mb()
        time.sleep(6)
        row["load6"] = server.pss_mb()
        row["req_s"] = rate
        row["cpu_us"] = used / requests * 1e6 if requests else float("nan")
        if errors:
            row["errors"] = errors
        return row
    finally:
        server.stop()


NMT_REGION = re.compile(r"\[0x([0-9a-f]+) - 0x([0-9a-f]+)\] reserved (?:and committed )?\d+KB for (.+?) from")
SMAPS_HEAD = re.compile(r"([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)")


def by_mapping(pid, nmt_detail):
    """{kind: [Pss, Private_Dirty, Rss] in MB} from /proc/PID/smaps; anonymous mappings inside a region
    NMT reserved are named after it ("jvm: Java Heap"), the rest are malloc arenas and Python's heaps."""
    regions = [(int(a, 16), int(b, 16), what) for a, b, what in NMT_REGION.findall(nmt_detail)]
    totals, current = collections.defaultdict(lambda: [0, 0, 0]), None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = SMAPS_HEAD.match(line)
        if head:
            start, path = int(head.group(1), 16), head.group(3).strip()
            if not path:
                kind = next((f"jvm: {what}" for a, b, what in regions if a <= start < b),
                            "anonymous, outside the JVM's reservations (malloc arenas, Python's heaps)")
            elif path.startswith("["):
                kind = path
            elif "/site-packages/" in path or "/lib-dynload/" in path:
                kind = "Python extension modules (.so)"
            else:
                kind = "file: " + re.sub(r"\.so[.\d]*$", ".so", path.rsplit("/", 1)[-1])
            current = totals[kind]
            continue
        field = re.match(r"(Pss|Private_Dirty|Rss):\s+(\d+) kB", line)
        if field and current is not None:
            current[("Pss", "Private_Dirty", "Rss").index(field.group(1))] += int(field.group(2)) / 1024
    return totals


def breakdown(variant, count, load_seconds):
    java = Path(os.environ.get("JAVA_HOME", "/usr")) / "bin" / "jcmd"
    port = free_port()
    server = start(variant, count, port, "-XX:NativeMemoryTracking=detail")
    try:
        server.wait_first_200()
        server.wait_runtimes(count)
        time.sleep(6)
        pid = java_pid(server)
        detail = subprocess.run([str(java), str(pid), "VM.native_memory", "detail"], capture_output=True, text=True).stdout
        idle = by_mapping(pid, detail)
        wrk(port, load_seconds)
        time.sleep(6)
        loaded = by_mapping(pid, detail)
        summary = subprocess.run([str(java), str(pid), "VM.native_memory", "summary"], capture_output=True, text=True).stdout
    finally:
        server.stop()
    print(f"\n{variant['name']}: /proc/PID/smaps by mapping, MB (NMT's own tracking adds ~1-2 MB of malloc)")
    print(f"| mapping | Pss idle | Private_Dirty idle | Rss idle | Pss after load |\n| --- | ---: | ---: | ---: | ---: |")
    for kind in sorted(set(idle) | set(loaded), key=lambda k: -loaded.get(k, idle.get(k, [0]))[0]):
        i, l = idle.get(kind, [0, 0, 0]), loaded.get(kind, [0, 0, 0])
        if max(i[0], l[0]) >= 0.3:
            print(f"| {kind} | {i[0]:.1f} | {i[1]:.1f} | {i[2]:.1f} | {l[0]:.1f} |")
    print(f"| total | {sum(v[0] for v in idle.values()):.1f} | {sum(v[1] for v in idle.values()):.1f} | "
          f"{sum(v[2] for v in idle.values()):.1f} | {sum(v[0] for v in loaded.values()):.1f} |")
    print("\nNMT summary after load:\n" + summary)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("variants", nargs="+", metavar="VARIANT")
    p.add_argument("--interpreters", type=int, default=4, help="runtimes per apx (and Uvicorn workers), default 4")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--load-seconds", type=int, default=15)
    p.add_argument("--breakdown", metavar="NAME", help="also break that variant's memory down by mapping")
    o = p.parse_args()
    variants = [parse_variant(v) for v in o.variants]
    print(f"jvm-floor: load average {os.getloadavg()[0]:.2f}", flush=True)
    rows = collections.defaultdict(list)
    try:
        for r in range(o.rounds):
            for v in variants:
                row = one_round(v, o.interpreters, o.load_seconds)
                rows[v["name"]].append(row)
                print(f"round {r + 1} {v['name']}: " + " ".join(
                    f"{k}={x:.1f}" if isinstance(x, float) else f"{k}={x}" for k, x in row.items())
                      + f" (load {os.getloadavg()[0]:.1f})", flush=True)
        fields = ["idle1", "idle6", "during", "load0", "load6", "req_s", "cpu_us"]
        yard = rows.get("uvicorn")
        ratios = ("idle6", "during", "load0")
        print(f"\nmedians over {o.rounds} rounds, {o.interpreters} runtimes (PSS in MB; x = over uvicorn's, same field)")
        print("| variant | " + " | ".join(fields) + "".join(f" | x {f}" for f in ratios) + " |\n|"
              + " --- |" * (len(fields) + len(ratios) + 1))
        for v in variants:
            med = {f: statistics.median(row[f] for row in rows[v["name"]]) for f in fields}
            x = [f"{med[f] / statistics.median(row[f] for row in yard):.2f}" if yard else "" for f in ratios]
            print(f"| {v['name']} | " + " | ".join(f"{med[f]:.0f}" if f in ("req_s", "cpu_us") else f"{med[f]:.1f}"
                                                    for f in fields) + "".join(f" | {r}" for r in x) + " |")
        if o.breakdown:
            breakdown(next(v for v in variants if v["name"] == o.breakdown), o.interpreters, o.load_seconds)
    finally:
        for server in list(Server.running):
            server.stop()
    print(f"jvm-floor: load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
