"""The report of a bench/run: summary rows, the Markdown table, the targets, the TSV, the chart,
and the block of docs/benchmarks.md. Used by bench/driver.py; no measuring here."""
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# issue 6's targets for apx req/s ÷ Uvicorn req/s (sleep-1ms: at 256 connections)
TARGETS = {"plaintext": 3.0, "get-10k": 3.0, "echo-4k": 2.0, "echo-10k": 2.0, "stream-64x1k": 4.0, "sleep-1ms": 1.5,
           "starlette-json": 1.5, "fastapi-json": 1.5}


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
        cpu_seconds_used = sum(r["server_cpu_pct"] / 100 * r["duration_s"] for r in mine)
        rows[-1]["per_cpu_s"] = sum(r["requests"] for r in mine) / cpu_seconds_used if cpu_seconds_used else 0.0
    by_key = {(r["workload"], r["connections"], r["server"]): r for r in rows}
    for row in rows:
        uvicorn = by_key.get((row["workload"], row["connections"], "uvicorn"))
        row["ratio"] = row["rps"] / uvicorn["rps"] if row["server"] == "apx" and uvicorn else None
        row["cpu_ratio"] = row["per_cpu_s"] / uvicorn["per_cpu_s"] \
            if row["server"] == "apx" and uvicorn and uvicorn["per_cpu_s"] else None
        metrics_off = by_key.get((row["workload"], row["connections"], "apx")) if row["server"] == "apx-metrics" else None
        if metrics_off:  # the --metrics row: its cost, on against off in the same run (target >= 0.97)
            row["vs_metrics_off"] = row["rps"] / metrics_off["rps"]
            row["cpu_vs_metrics_off"] = row["per_cpu_s"] / metrics_off["per_cpu_s"] if metrics_off["per_cpu_s"] else None
    ceiling = {r["connections"]: r for r in rows if r["workload"] == "plaintext-ceiling" and r["server"] == "netty"}
    for row in rows:
        if row["workload"] == "plaintext" and row["server"] == "apx" and row["connections"] in ceiling:
            row["of_ceiling_pct"] = 100 * row["rps"] / ceiling[row["connections"]]["rps"]
    return rows


def table(rows):
    lines = ["| workload | conns | server | req/s | spread | p50 ms | p99 ms | errors | server CPU | req/CPU-s | warm-up | apx/uvicorn |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        ratio = f"**{r['ratio']:.2f}×**" if r.get("ratio") else ""
        if r.get("cpu_ratio"):
            ratio += f" · per CPU-s {r['cpu_ratio']:.2f}×"
        if r.get("ratio") and r["workload"] in TARGETS and (r["workload"] != "sleep-1ms" or r["connections"] == 256):
            ratio += f" (target {TARGETS[r['workload']]:.1f}×)"
        if r.get("vs_metrics_off"):
            ratio += f"--metrics on/off **{r['vs_metrics_off']:.3f}×**"
            if r.get("cpu_vs_metrics_off"):
                ratio += f" · per CPU-s {r['cpu_vs_metrics_off']:.3f}×"
        if "of_ceiling_pct" in r:
            ratio += f" ({r['of_ceiling_pct']:.0f} % of netty)"
        lines.append(f"| {r['workload']} | {r['connections']} | {r['server']} | {r['rps']:,.0f} | {r['spread_pct']:.0f} % "
                     f"| {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['errors']} | {r['server_cpu_pct']:.0f} % | {r['per_cpu_s']:,.0f} | {r['warmup_s']} s | {ratio} |")
    return "\n".join(lines)


def targets(rows):
    """Issue 6's targets, each with what this run measured and whether it is met."""
    by_key = {(r["workload"], r["connections"], r["server"]): r for r in rows}
    lines = []

    def verdict(ok):
        return "met" if ok else "MISSED"

    for workload, target in TARGETS.items():
        for conns in sorted({r["connections"] for r in rows if r["workload"] == workload and r.get("ratio")}):
            if workload == "sleep-1ms" and conns != 256:
                continue
            ratio = by_key[(workload, conns, "apx")]["ratio"]
            lines.append(f"- {workload} at {conns}: {ratio:.2f}× of ≥ {target:.1f}×: {verdict(ratio >= target)}")
    for r in rows:
        if r["server"] == "apx" and r["connections"] == 256 and (r["workload"], 256, "uvicorn") in by_key:
            theirs = by_key[(r["workload"], 256, "uvicorn")]["p99_ms"]
            lines.append(f"- p99 at 256, {r['workload']}: apx {r['p99_ms']:.1f} ms vs Uvicorn {theirs:.1f} ms: "
                         f"{verdict(r['p99_ms'] <= theirs)}")
    for r in rows:
        if r.get("vs_metrics_off"):
            ratio += f"--metrics on/off **{r['vs_metrics_off']:.3f}×**"
            if r.get("cpu_vs_metrics_off"):
                ratio += f" · per CPU-s {r['cpu_vs_metrics_off']:.3f}×"
        if "of_ceiling_pct" in r:
            lines.append(f"- plaintext at {r['connections']}: {r['of_ceiling_pct']:.0f} % of the netty ceiling, of ≥ 50 %: "
                         f"{verdict(r['of_ceiling_pct'] >= 50)}")
    return "\n".join(lines)


def tsv(rows):
    header = ["workload", "connections", "server", "reps", "rps", "spread_pct", "p50_ms", "p99_ms", "errors",
              "server_cpu_pct", "per_cpu_s", "warmup_s", "ratio", "cpu_ratio"]
    lines = ["\t".join(header)]
    for r in rows:
        lines.append("\t".join("" if r.get(h) is None else (f"{r[h]:.3f}" if isinstance(r[h], float) else str(r[h]))
                               for h in header))
    return "\n".join(lines) + "\n"


def chart(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratios = [r for r in rows if r.get("ratio")]
    workloads = list(dict.fromkeys(r["workload"] for r in ratios))
    connections = sorted({r["connections"] for r in ratios})
    fig, ax = plt.subplots(figsize=(10, 4.8), dpi=110)
    width = 0.8 / max(1, len(connections))
    for i, conns in enumerate(connections):
        values = [next((r["ratio"] for r in ratios if r["workload"] == w and r["connections"] == conns), 0) for w in workloads]
        xs = [x + (i - (len(connections) - 1) / 2) * width for x in range(len(workloads))]
        bars = ax.bar(xs, values, width, label=f"{conns} connections")
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    labelled = False
    for x, w in enumerate(workloads):
        if w in TARGETS:
            ax.hlines(TARGETS[w], x - 0.45, x + 0.45, colors="red", linewidth=1.5, label=None if labelled else "issue 6 target")
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
                       f"{settings['reps']} repetitions of {settings['duration']} s, warm-up {settings['warmup_apx']} s "
                       f"apx / {settings['warmup_uvicorn']} s Uvicorn; load average {settings['loadavg_start']:.2f} "
                       f"before, {settings['loadavg_end']:.2f} after).", "",
                       table(rows), "", "Issue 6's targets in this run:", "", targets(rows), "",
                       "Machine and versions:", ""]
                      + [f"- {k}: {v}" for k, v in facts.items()] + ["", end])
    before, rest = text.split(start, 1)
    doc.write_text(before + block + rest.split(end, 1)[1])
    chart(rows, ROOT / "docs" / "benchmarks.png")
    (ROOT / "docs" / "benchmarks.json").write_text(json.dumps({"settings": settings, "machine": facts, "rows": rows}, indent=1) + "\n")
    print(f"bench: updated {doc}, docs/benchmarks.png and docs/benchmarks.json")
