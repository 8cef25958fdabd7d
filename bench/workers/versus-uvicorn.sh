#!/usr/bin/env bash
# apx --workers N beside Uvicorn --workers N (uvloop + httptools), plaintext, in interleaved rounds.
# Usage: bench/workers/versus-uvicorn.sh [N]   env: ROUNDS (6), SECS (5), WARM (20), CONNS (256)
# No pinning: the workers and wrk share the machine's cores (on a 2-core box that is no contest of
# servers alone, hence no target: issue 14 asks for the figure, reported). Medians of req/s and p99.
set -uo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$ROOT"; V=.venv/bench/bin/python; n=${1:-2}; R=${ROUNDS:-6}; D=${SECS:-5}; C=${CONNS:-256}
[ -x "$V" ] || { echo "bench: run bench/run once first (it makes .venv/bench)" >&2; exit 1; }
pa=${PORT:-18950}; pu=$((pa + 1)); pids=(); results=$(mktemp)
trap 'for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done; rm -f "$results"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
bin/apx --python $V --app-dir bench/apps --port $pa --workers "$n" --no-access-log --log-level warning raw:hello >/dev/null 2>&1 &
pids+=($!)
$V -m uvicorn --loop uvloop --http httptools --app-dir bench/apps --port $pu --workers "$n" --no-access-log --log-level warning raw:hello >/dev/null 2>&1 &
pids+=($!)
for p in $pa $pu; do
  for _ in $(seq 600); do curl -s -o /dev/null "http://127.0.0.1:$p/" && break; sleep 0.2; done
  wrk -t2 -c"$C" -d"${WARM:-20}s" "http://127.0.0.1:$p/" >/dev/null
done
for _ in $(seq "$R"); do for name in apx uvicorn; do
  p=$pa; [ $name = uvicorn ] && p=$pu
  out=$(wrk -t2 -c"$C" -d"${D}s" --latency "http://127.0.0.1:$p/")
  echo "$name $(echo "$out" | awk '/Requests\/sec/{print $2}') $(echo "$out" | awk '$1=="99%"{print $2}')" >> "$results"
done; done
python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for name, rps, p99 in (line.split() for line in open(sys.argv[1])):
    rows.setdefault(name, []).append((float(rps), p99))
for name, got in rows.items():
    print(f"{name:8s} median {statistics.median(r for r, _ in got):9.0f} req/s  p99s {' '.join(p for _, p in got)}")
a, u = (statistics.median(r for r, _ in rows[k]) for k in ("apx", "uvicorn"))
print(f"apx / uvicorn: {a / u:.2f}x")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
