#!/usr/bin/env bash
# Issue 7, item 5's measurement: does a failing app hurt the requests beside it? apx and Uvicorn
# (--loop uvloop --http httptools) serve apxtest.failing_apps (src/test/resources/python), both on
# core 0. A paced wrk probe (bench/wrk/paced.lua, 8 connections, <= ~2,000 req/s) measures the
# healthy route /healthy/x alone, then beside bench/failing_load.py (CLIENTS loops of exceptions,
# SystemExit, invalid messages, a send after the response, abandoned never-finishing handlers), on
# core 1; alternately per server, REPS times. Fails (exit 1) on any healthy error.
# Usage: [SERVER_CORE=0 CLIENT_CORE=1] bench/failing-apps.sh [SECONDS=8] [REPS=2] [CLIENTS=4]
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
DURATION=${1:-8}; REPS=${2:-2}; CLIENTS=${3:-4}
SERVER_CORE=${SERVER_CORE:-0}; CLIENT_CORE=${CLIENT_CORE:-1}
PY=${APX_BENCH_PYTHON:-$ROOT/.venv/bench/bin/python}
[ -x "$PY" ] && "$PY" -c 'import uvicorn' 2>/dev/null || { echo "failing-apps: needs .venv/bench with uvicorn (run bench/run once)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "failing-apps: wrk is missing (Debian: apt-get install wrk)" >&2; exit 1; }
"$ROOT/bin/apx" --version >/dev/null  # builds target/apx.jar when the sources changed
APPS=$ROOT/src/test/resources/python
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
LOGS=$(mktemp -d /tmp/apx-failing-apps.XXXXXX)

declare -A PORT PID
PORT[apx]=$(free_port); PORT[uvicorn]=$(free_port)
taskset -c "$SERVER_CORE" "$ROOT/bin/apx" --python "$PY" --app-dir "$APPS" --port "${PORT[apx]}" --no-access-log --timeout-graceful-shutdown 2 \
  apxtest.failing_apps:app >"$LOGS/apx.log" 2>&1 &
PID[apx]=$!
taskset -c "$SERVER_CORE" "$PY" -m uvicorn --loop uvloop --http httptools --app-dir "$APPS" --port "${PORT[uvicorn]}" --no-access-log --timeout-graceful-shutdown 2 \
  apxtest.failing_apps:app >"$LOGS/uvicorn.log" 2>&1 &
PID[uvicorn]=$!
trap 'kill -TERM ${PID[apx]} ${PID[uvicorn]} 2>/dev/null; wait' EXIT  # both cancel the never-finishing handlers after 2 s
for server in apx uvicorn; do
  for _ in $(seq 1 600); do curl -sf -o /dev/null "http://127.0.0.1:${PORT[$server]}/healthy/ready" && break; sleep 0.1; done
  curl -sf -o /dev/null "http://127.0.0.1:${PORT[$server]}/healthy/ready" \
    || { echo "failing-apps: $server did not answer within 60 s; see $LOGS/$server.log" >&2; exit 1; }
done

probe() {  # server -> "req/s p50 p99 errors"
  local out
  out=$(taskset -c "$CLIENT_CORE" wrk -t1 -c8 -d"${DURATION}s" --latency --timeout 10s -s "$ROOT/bench/wrk/paced.lua" \
    "http://127.0.0.1:${PORT[$1]}/healthy/x")
  awk '/Requests\/sec/ {rate = $2} $1 == "50%" {p50 = $2} $1 == "99%" {p99 = $2}
       /Non-2xx/ {errors += $NF} /Socket errors/ {gsub(",", ""); errors += $4 + $6 + $8 + $10}
       END {printf "%s %s %s %d", rate, p50, p99, errors}' <<<"$out"
}

taskset -c "$CLIENT_CORE" wrk -t1 -c8 -d10s "http://127.0.0.1:${PORT[apx]}/healthy/x" >/dev/null      # JIT warm-up
taskset -c "$CLIENT_CORE" wrk -t1 -c8 -d2s "http://127.0.0.1:${PORT[uvicorn]}/healthy/x" >/dev/null
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); ${DURATION} s per probe, $CLIENTS failing clients"
ROWS=$LOGS/rows.txt
row() { printf '%-8s %3s %-7s %9s %9s %9s %7s %12s\n' "$@" | tee -a "$ROWS"; }
row server rep phase req/s p50 p99 errors failing/s
failed=0
for rep in $(seq 1 "$REPS"); do
  for server in apx uvicorn; do
    read -r rate p50 p99 errors <<<"$(probe "$server")"
    row "$server" "$rep" alone "$rate" "$p50" "$p99" "$errors" -
    [ "$errors" -eq 0 ] || failed=1
    taskset -c "$CLIENT_CORE" "$PY" "$ROOT/bench/failing_load.py" "${PORT[$server]}" "$DURATION" "$CLIENTS" >"$LOGS/load-$server-$rep.json" &
    load=$!
    read -r rate p50 p99 errors <<<"$(probe "$server")"
    wait "$load"
    failing=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["per_second"])' "$LOGS/load-$server-$rep.json")
    row "$server" "$rep" beside "$rate" "$p50" "$p99" "$errors" "$failing"
    [ "$errors" -eq 0 ] || failed=1
  done
done
for server in apx uvicorn; do
  curl -sf -o /dev/null "http://127.0.0.1:${PORT[$server]}/healthy/after" || { echo "$server no longer answers" >&2; failed=1; }
done
"$PY" - "$ROWS" <<'SUMMARY'
import statistics, sys
def ms(text):
    for unit, factor in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * factor
rows = [line.split() for line in open(sys.argv[1]).read().splitlines()[1:]]
print("medians over the reps (beside/alone):")
for server in ("apx", "uvicorn"):
    med = {phase: [statistics.median(ms(r[col]) for r in rows if r[0] == server and r[2] == phase) for col in (4, 5)]
           for phase in ("alone", "beside")}
    print(f"  {server:8} p50 {med['alone'][0]:.2f} -> {med['beside'][0]:.2f} ms ({med['beside'][0] / med['alone'][0]:.2f}x), "
          f"p99 {med['alone'][1]:.2f} -> {med['beside'][1]:.2f} ms ({med['beside'][1] / med['alone'][1]:.2f}x)")
SUMMARY
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); server logs and failing-load outcomes: $LOGS"
exit $failed
