#!/usr/bin/env bash
# How evenly `apx --workers N` spreads wrk's connections: requests per worker under wrk -c256 -d10s.
# Usage: bench/workers/spread.sh N   (apx's shared socket; docs/workers.md has the SO_REUSEPORT comparison)
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
source "$ROOT/bin/jdk.sh"
n=${1:-2}; port=${PORT:-8790}
PY=${APX_PYTHON:-$ROOT/.venv/py3.11/bin/python}
"$ROOT/bin/apx" --version >/dev/null   # builds the jar
export COUNT_DIR=$(mktemp -d)
err=$COUNT_DIR.err
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar "$ROOT/target/apx.jar" --python "$PY" --app-dir "$ROOT/bench/workers" \
  --port "$port" --workers "$n" --no-access-log countapp:app 2>"$err" &
pid=$!
for _ in $(seq 600); do [ "$(grep -c "Application startup complete" "$err")" -ge "$n" ] && break; sleep 0.2; done
sleep 1
wrk -t2 -c256 -d10s "http://127.0.0.1:$port/" | grep -E "Requests/sec|errors" || true
kill -TERM "$pid"; wait "$pid" || true
echo "load average $(cut -d' ' -f1-3 /proc/loadavg); requests per worker: $(for f in "$COUNT_DIR"/*; do printf '%s ' "$(cat "$f")"; done)"
