#!/usr/bin/env bash
# wrk requests/second of apx and Uvicorn (--loop uvloop --http httptools), one after the other:
# server on core 0, wrk on core 1, 50 connections, 127.0.0.1 only. Needs wrk and .venv/py3.11.
# Usage: bench/wrk.sh [seconds]
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
DURATION=${1:-10}
PY="$ROOT/.venv/py3.11/bin/python"
PORT=8765
"$ROOT/bin/apx" --version >/dev/null  # builds the jar first

wait_port() { for _ in $(seq 1 200); do curl -s -o /dev/null "http://127.0.0.1:$PORT$1" && return 0; sleep 0.1; done; return 1; }

run() { # name path command...
  local name=$1 path=$2; shift 2
  taskset -c 0 "$@" >/dev/null 2>&1 &
  local pid=$!
  wait_port "$path"
  taskset -c 1 wrk -t1 -c50 -d2s "http://127.0.0.1:$PORT$path" >/dev/null  # warm-up
  local rps
  rps=$(taskset -c 1 wrk -t1 -c50 -d"${DURATION}s" "http://127.0.0.1:$PORT$path" | awk '/Requests\/sec/ {print $2}')
  kill -TERM "$pid"; wait "$pid" || true
  printf '%-28s %12s req/s\n' "$name" "$rps"
}

for app in "hello:app /" "fastapi_app:app /items/1?q=x"; do
  spec=${app% *}; path=${app#* }
  run "apx     $spec" "$path" "$ROOT/bin/apx" --python "$PY" --app-dir "$ROOT/examples" --port $PORT --no-access-log "$spec"
  run "uvicorn $spec" "$path" "$PY" -m uvicorn --loop uvloop --http httptools --app-dir "$ROOT/examples" --port $PORT --no-access-log --log-level warning "$spec"
done
