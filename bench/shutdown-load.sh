#!/usr/bin/env bash
# The full-size graceful-shutdown run of issue 7 (item 7): SIGTERM to the packaged jar while N
# requests (default 500) are in flight: slow ones, streams, and stuck ones the graceful timeout
# (3 s) cancels. ShutdownUnderLoadIT with -Dapx.shutdown.inflight=N; it checks every byte of the
# finishable responses, refused connects, closed idle connections, the cancels and their log
# lines, lifespan shutdown and exit 0, and prints the timings. The normal test run uses 150.
#   bench/shutdown-load.sh [N] [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
source bin/jdk.sh
inflight="${1:-500}"
reps="${2:-1}"
[ -x .venv/py3.11/bin/python ] || bin/venvs
mvn -B -ntp -o -q package -DskipTests
status=0
for rep in $(seq 1 "$reps"); do
  log="target/shutdown-load-$inflight-$rep.log"
  echo "run $rep, load: $(cut -d' ' -f1-3 /proc/loadavg)"
  mvn -B -ntp -o failsafe:integration-test failsafe:verify -Dit.test=ShutdownUnderLoadIT -Dapx.shutdown.inflight="$inflight" \
    >"$log" 2>&1 || status=$?
  grep -aE "shutdown under load|Tests run:|Expecting|but was|\[ERROR\] .*ShutdownUnderLoadIT" "$log" | head -8 || true
done
echo "full logs: target/shutdown-load-$inflight-*.log (exit $status)"
exit "$status"
