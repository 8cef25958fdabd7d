#!/usr/bin/env bash
# WebSocket echo round trips/s, 100 connections: apx, then Uvicorn (--ws websockets, uvloop), same
# app (apxtest.ws_apps /echo), server on core 0 and the client on core 1. Needs bin/venvs.
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
PY="$ROOT/.venv/py3.11/bin/python"
APPS="$ROOT/src/test/resources/python"
CONNECTIONS=${CONNECTIONS:-100}
SECONDS_=${SECONDS_:-10}

wait_port() { for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
run() { # name port command...
  local name=$1 port=$2; shift 2
  taskset -c 0 "$@" >/dev/null 2>&1 &
  local pid=$!
  wait_port "$port"
  sleep 1
  taskset -c 1 "$PY" "$ROOT/bench/ws_echo.py" "ws://127.0.0.1:$port/echo" 20 2 >/dev/null # warm-up
  echo "$name: $(taskset -c 1 "$PY" "$ROOT/bench/ws_echo.py" "ws://127.0.0.1:$port/echo" "$CONNECTIONS" "$SECONDS_") round trips/s"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

"$ROOT/bin/apx" --version >/dev/null
run apx 8701 "$ROOT/bin/apx" --python "$PY" --app-dir "$APPS" --port 8701 --no-access-log apxtest.ws_apps:app
run uvicorn 8702 "$PY" -m uvicorn --loop uvloop --ws websockets --app-dir "$APPS" --port 8702 --no-access-log apxtest.ws_apps:app
