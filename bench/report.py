"""The report of a bench/run: summary rows, the Markdown table, the targets, the TSV, the chart,
and the block of docs/benchmarks.md. Used by bench/driver.py; no measuring here."""
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# issue 12's targets for apx req/s ÷ Uvicorn req/s, at every connection count measured (they replace
# issue 6's); and on every row, apx's p99 no higher than Uvicorn's
TARGETS = {"fastapi-json": 1.5, "fastapi-post": 1.5, "starlette-json": 1.8, "django-json": 1.3,
           "db": 1.5, "fortunes": 1.5, "queries-20": 1.2, "updates-5": 1.2,
           "plaintext": 2.5, "echo-4k": 2.0, "stream-64x1k": 3.0}
# Issue 16's, against Gunicorn -k gthread (the WSGI rows' "ratio" column stays apx/Uvicorn --interface wsgi)
WSGI_TARGETS = {"flask-hello": 2.0, "django-wsgi": 1.5}
CEILING_TARGET_PCT = 70  # apx plaintext as a share of bare Netty measured in the same run
METRICS_COST_TARGET = 0.97  # issue 17: plaintext req/s with --metrics within 3 % of it off


def is_apx(server):
    """apx with its defaults ("apx") or with `--io MODE` ("apx:MODE"); not the Java-only ceilings."""
    return server == "apx" or server.startswith("apx:")


def is_compared_peer(server):
    """Granian (plain or granian:MODE) and Hypercorn: peers whose ratios the table shows beside Uvicorn's."""
    return server in ("granian", "hypercorn") or server.startswith("granian:")


def summarise(runs):
    """One row per (workload, connections, server): means over the repetitions."""
    rows = []
    keys = []
    for run in runs:
        key = (run["workload"], run["connections"], run["server"])
        if key not in keys:
            keys.append(key)
    for key in keys:
        mine = [r for r in runs if (r["workload"], r["connections"], r["server"]) == key]
        rps = [r["rps"] for r in mine]
        rows.append({"workload": key[0], "connections": key[1], "server": key[2], "reps": len(mine),
                     "rps": statistics.mean(rps),
                     "spread_pct": 100 * (max(rps) - min(rps)) / statistics.mean(rps) if len(rps) > 1 else 0.0,
                     "p50_ms": statistics.mean(r["p50_ms"] for r in mine),
                     "p99_ms": statistics.mean(r["p99_ms"] for r in mine),
                     "errors": sum(r["errors"] for r in mine), "warmup_s": mine[0]["warmup_s"],
                     "server_cpu_pct": statistics.mean(r["server_cpu_pct"] for r in mine)})
        requests = sum(r["requests"] for r in mine)
        rows[-1]["requests"] = requests
        # runs saved before the CPU-time and context-switch fields: CPU time from the CPU share
        cpu_seconds_used = sum(r.get("server_cpu_s", r["server_cpu_pct"] / 100 * r["duration_s"]) for r in mine)
        rows[-1]["per_cpu_s"] = requests / cpu_seconds_used if cpu_seconds_used else 0.0
        rows[-1]["cpu_us_per_req"] = 1e6 * cpu_seconds_used / requests if requests else None
        rows[-1]["ctx_per_req"] = sum(r["server_ctx_switches"] for r in mine) / requests \
            if requests and all("server_ctx_switches" in r for r in mine) else None
    by_key = {(r["workload"], r["connections"], r["server"]): r for r in rows}
    for row in rows:
        uvicorn = by_key.get((row["workload"], row["connections"], "uvicorn"))
        row["ratio"] = row["rps"] / uvicorn["rps"] if is_apx(row["server"]) and uvicorn else None
        row["cpu_ratio"] = row["per_cpu_s"] / uvicorn["per_cpu_s"] \
            if is_apx(row["server"]) and uvicorn and uvicorn["per_cpu_s"] else None
        # a server that answered nothing in the window has no p99 to compare (wrk reports 0)
        row["p99_ok"] = row["requests"] > 0 and row["p99_ms"] <= uvicorn["p99_ms"] \
            if is_apx(row["server"]) and uvicorn else None
        metrics_off = by_key.get((row["workload"], row["connections"], "apx")) if row["server"] == "apx-metrics" else None
        if metrics_off:  # the --metrics row: its cost, on against off in the same run (METRICS_COST_TARGET)
            # the median of the rounds' ratios: each round's on and off ran back to back, so the VM's
            # drift (10-20 % over minutes) cancels, which a ratio of means over the rounds does not
            on_runs = {r["rep"]: r for r in runs if (r["workload"], r["connections"], r["server"]) == (row["workload"], row["connections"], "apx-metrics")}
            off_runs = {r["rep"]: r for r in runs if (r["workload"], r["connections"], r["server"]) == (row["workload"], row["connections"], "apx")}
            reps = sorted(set(on_runs) & set(off_runs))
            row["vs_metrics_off"] = statistics.median(on_runs[i]["rps"] / off_runs[i]["rps"] for i in reps) if reps \
                else row["rps"] / metrics_off["rps"]
            row["cpu_vs_metrics_off"] = row["per_cpu_s"] / metrics_off["per_cpu_s"] if metrics_off["per_cpu_s"] else None
    for row in rows:  # apx against Granian and Hypercorn (any runtime mode): req/s and req/CPU-s ratios
        if is_apx(row["server"]):
            row["vs_peers"] = {}
            for other in rows:
                if (other["workload"], other["connections"]) == (row["workload"], row["connections"]) \
                        and is_compared_peer(other["server"]):
                    row["vs_peers"][other["server"]] = (row["rps"] / other["rps"] if other["rps"] else None,
                                                        row["per_cpu_s"] / other["per_cpu_s"] if other["per_cpu_s"] else None)
    for row in rows:  # the WSGI rows: apx against Gunicorn too
        gunicorn = by_key.get((row["workload"], row["connections"], "gunicorn"))
        row["gunicorn_ratio"] = row["rps"] / gunicorn["rps"] if is_apx(row["server"]) and gunicorn else None
        row["gunicorn_cpu_ratio"] = row["per_cpu_s"] / gunicorn["per_cpu_s"] \
            if is_apx(row["server"]) and gunicorn and gunicorn["per_cpu_s"] else None
    ceiling = {r["connections"]: r for r in rows if r["workload"] == "plaintext-ceiling" and r["server"] == "netty"}
    for row in rows:
        if row["workload"] == "plaintext" and is_apx(row["server"]) and row["connections"] in ceiling:
            row["of_ceiling_pct"] = 100 * row["rps"] / ceiling[row["connections"]]["rps"]
    return rows


def _per_request(value, digits):
    return "" if value is None else f"{value:,.{digits}f}"


def table(rows):
    """CPU µs/req and ctx sw/req: the server's CPU time and context switches (all its threads, from
    /proc) over the measured window, per request served."""
    lines = ["| workload | conns | server | req/s | spread | p50 ms | p99 ms | errors | server CPU | CPU µs/req | ctx sw/req "
             "| warm-up | apx/uvicorn |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        ratio = f"**{r['ratio']:.2f}×**" if r.get("ratio") is not None else ""
        if r.get("cpu_ratio") is not None:
            ratio += f" · per CPU-s {r['cpu_ratio']:.2f}×"
        if r.get("ratio") is not None and _base(r["workload"]) in TARGETS:
            ratio += f" (target {TARGETS[_base(r['workload'])]:.1f}×)"
        if r.get("requests") == 0:
            ratio += " · served nothing in the window"
        elif r.get("p99_ok") is False:
            ratio += " · p99 above Uvicorn's"
        if r.get("vs_metrics_off"):
            ratio += f"--metrics on/off **{r['vs_metrics_off']:.3f}×**"
            if r.get("cpu_vs_metrics_off"):
                ratio += f" · per CPU-s {r['cpu_vs_metrics_off']:.3f}×"
        if "of_ceiling_pct" in r:
            ratio += f" ({r['of_ceiling_pct']:.0f} % of netty)"
        for peer, (rps_ratio, cpu_ratio) in (r.get("vs_peers") or {}).items():
            if rps_ratio is not None:
                ratio += f"; vs {peer} **{rps_ratio:.2f}×** · per CPU-s {cpu_ratio or 0:.2f}×"
        if r.get("gunicorn_ratio"):
            ratio += f"; vs gunicorn **{r['gunicorn_ratio']:.2f}×** · per CPU-s {r['gunicorn_cpu_ratio'] or 0:.2f}×"
            if r["workload"] in WSGI_TARGETS:
                ratio += f" (target {WSGI_TARGETS[r['workload']]:.1f}×)"
        lines.append(f"| {r['workload']} | {r['connections']} | {r['server']} | {r['rps']:,.0f} | {r['spread_pct']:.0f} % "
                     f"| {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['errors']} | {r['server_cpu_pct']:.0f} % "
                     f"| {_per_request(r.get('cpu_us_per_req'), 0)} | {_per_request(r.get('ctx_per_req'), 3)} "
                     f"| {r['warmup_s']} s | {ratio} |")
    return "\n".join(lines)


PEER_ORDER = ("apx", "uvicorn", "granian", "hypercorn", "gunicorn")


def peers_table(rows):
    """One line per (workload, connections), one column per server: req/s, p50/p99 ms and CPU µs/req,
    then apx's req/s and CPU per request against the fastest peer's. docs/benchmarks-peers.md's table."""
    servers = sorted({r["server"] for r in rows if r["workload"] != "plaintext-ceiling"},
                     key=lambda s: (PEER_ORDER.index(s.split(":")[0]) if s.split(":")[0] in PEER_ORDER else 99, s))
    lines = ["| workload | conns | " + " | ".join(servers) + " | fastest peer | apx ÷ it: req/s · CPU/req |",
             "|---|---:|" + "---:|" * len(servers) + "---|---:|"]
    by_key = {(r["workload"], r["connections"], r["server"]): r for r in rows}
    for workload, connections in dict.fromkeys((r["workload"], r["connections"]) for r in rows
                                               if r["workload"] != "plaintext-ceiling"):
        cells = []
        for server in servers:
            r = by_key.get((workload, connections, server))
            cells.append("" if r is None else f"{r['rps']:,.0f}<br>{r['p50_ms']:.1f} / {r['p99_ms']:.1f} ms"
                                              f"<br>{_per_request(r.get('cpu_us_per_req'), 0)} µs")
        peers = [by_key[(workload, connections, s)] for s in servers
                 if not is_apx(s) and (workload, connections, s) in by_key]
        apx = next((by_key[(workload, connections, s)] for s in servers if is_apx(s) and (workload, connections, s) in by_key), None)
        best = max(peers, key=lambda r: r["rps"]) if peers else None
        compared = ""
        if best and apx and best["rps"] and apx.get("cpu_us_per_req") and best.get("cpu_us_per_req"):
            compared = f"{apx['rps'] / best['rps']:.2f}× · {apx['cpu_us_per_req'] / best['cpu_us_per_req']:.2f}×"
        lines.append(f"| {workload} | {connections} | " + " | ".join(cells) + f" | {best['server'] if best else ''} | {compared} |")
    return "\n".join(lines)


def _base(workload):
    """A row's workload without its placement (db@unpinned: bench/run --db-placement)."""
    return workload.split("@", 1)[0]


NO_TARGET = {"plaintext-workers2"}  # issue 14: servers and wrk share the 2 cores; reported only


def targets(rows):
    """Issue 12's targets, each with what this run measured and whether it is met."""
    by_key = {(r["workload"], r["connections"], r["server"]): r for r in rows}
    lines = []

    def verdict(ok):
        return "met" if ok else "MISSED"

    for workload, target in TARGETS.items():
        for r in rows:
            if _base(r["workload"]) == workload and r.get("ratio") is not None:
                lines.append(f"- {r['workload']} at {r['connections']}{_who(r)}: {r['ratio']:.2f}× of ≥ {target:.1f}×: "
                             f"{verdict(r['ratio'] >= target)}")
    for workload, target in WSGI_TARGETS.items():
        for r in rows:
            if r["workload"] == workload and r.get("gunicorn_ratio"):
                lines.append(f"- {workload} at {r['connections']}: {r['gunicorn_ratio']:.2f}× Gunicorn gthread of ≥ {target:.1f}×: "
                             f"{verdict(r['gunicorn_ratio'] >= target)}")
    for r in rows:
        if r["workload"] in NO_TARGET:
            continue
        if r.get("p99_ok") is not None:
            theirs = by_key[(r["workload"], r["connections"], "uvicorn")]["p99_ms"]
            lines.append(f"- p99 ≤ Uvicorn's, {r['workload']} at {r['connections']}{_who(r)}: {r['p99_ms']:.1f} ms vs "
                         f"{theirs:.1f} ms: {verdict(r['p99_ok'])}")
    for r in rows:
        if r.get("vs_metrics_off"):
            line = f"- --metrics on/off at {r['connections']}{_who(r)}: {r['vs_metrics_off']:.3f}× req/s"
            if r.get("cpu_vs_metrics_off"):
                line += f" (per CPU-s {r['cpu_vs_metrics_off']:.3f}×)"
            lines.append(line + f" of ≥ {METRICS_COST_TARGET:.2f}×: {verdict(r['vs_metrics_off'] >= METRICS_COST_TARGET)}")
        if "of_ceiling_pct" in r:
            lines.append(f"- plaintext at {r['connections']}{_who(r)}: {r['of_ceiling_pct']:.0f} % of the netty ceiling, "
                         f"of ≥ {CEILING_TARGET_PCT} %: {verdict(r['of_ceiling_pct'] >= CEILING_TARGET_PCT)}")
    return "\n".join(lines)


def _who(row):
    """" (apx:threads)" when the run has apx in an explicit I/O mode."""
    return "" if row["server"] == "apx" else f" ({row['server']})"


def tsv(rows):
    header = ["workload", "connections", "server", "reps", "rps", "spread_pct", "p50_ms", "p99_ms", "errors",
              "server_cpu_pct", "per_cpu_s", "cpu_us_per_req", "ctx_per_req", "warmup_s", "ratio", "cpu_ratio", "p99_ok"]
    lines = ["\t".join(header)]
    for r in rows:
        lines.append("\t".join("" if r.get(h) is None else (f"{r[h]:.3f}" if isinstance(r[h], float) else str(r[h]))
                               for h in header))
    return "\n".join(lines) + "\n"


def chart(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratios = [r for r in rows if r.get("ratio") is not None]
    workloads = list(dict.fromkeys(r["workload"] for r in ratios))
    servers = list(dict.fromkeys(r["server"] for r in ratios))  # more than "apx" with --apx-io

    def position(r):  # a workload's n-th connection count (the database rows have only 64)
        return sorted({o["connections"] for o in ratios if o["workload"] == r["workload"]}).index(r["connections"])

    series = sorted({(r["server"], position(r)) for r in ratios}, key=lambda k: (servers.index(k[0]), k[1]))
    fig, ax = plt.subplots(figsize=(11, 4.8), dpi=110)
    width = 0.8 / max(1, len(series))
    for i, (server, n) in enumerate(series):
        mine = [r for r in ratios if (r["server"], position(r)) == (server, n)]
        values = [next((r["ratio"] for r in mine if r["workload"] == w), 0) for w in workloads]
        xs = [x + (i - (len(series) - 1) / 2) * width for x in range(len(workloads))]
        label = "/".join(str(c) for c in sorted({r["connections"] for r in mine})) + " connections"
        if len(servers) > 1:
            label = f"{server}, {label}"
        bars = ax.bar(xs, values, width, label=label)
        ax.bar_label(bars, labels=[f"{v:.2f}" if v else "" for v in values], fontsize=7)
    labelled = False
    for x, w in enumerate(workloads):
        if w in TARGETS:
            ax.hlines(TARGETS[w], x - 0.45, x + 0.45, colors="red", linewidth=1.5, label=None if labelled else "target")
            labelled = True
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(workloads)), workloads, rotation=30, ha="right")
    ax.set_ylabel("requests/s, apx ÷ Uvicorn")
    ax.set_title("apx vs Uvicorn (uvloop, httptools), 1 core each, wrk on the other")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def update_docs(rows, facts, settings):
    doc = ROOT / "docs" / "benchmarks.md"
    text = doc.read_text()
    start, end = "<!-- bench/run: table -->", "<!-- bench/run: end -->"
    if start not in text or end not in text:
        print(f"bench: {doc} has no {start} ... {end} block; not updated", file=sys.stderr)
        return
    block = "\n".join([start, "",
                       f"Run finished {settings.get('finished', time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))} "
                       f"({settings['elapsed_s'] / 60:.1f} min; "
                       f"{settings['reps']} repetitions of {settings['duration']} s, warm-up at least {settings['warmup_apx']} s "
                       f"apx, until its JIT is quiet / {settings['warmup_uvicorn']} s Uvicorn; load average {settings['loadavg_start']:.2f} "
                       f"before, {settings['loadavg_end']:.2f} after).", "",
                       table(rows), "", "Targets in this run:", "", targets(rows), "",
                       "Machine and versions:", ""]
                      + [f"- {k}: {v}" for k, v in facts.items()] + ["", end])
    before, rest = text.split(start, 1)
    doc.write_text(before + block + rest.split(end, 1)[1])
    chart(rows, ROOT / "docs" / "benchmarks.png")
    (ROOT / "docs" / "benchmarks.json").write_text(json.dumps({"settings": settings, "machine": facts, "rows": rows}, indent=1) + "\n")
    print(f"bench: updated {doc}, docs/benchmarks.png and docs/benchmarks.json")
