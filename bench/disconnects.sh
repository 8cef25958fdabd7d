#!/usr/bin/env bash
# The full-size disconnect run of issue 7: N clients (default 100,000) abort at random points
# (mid-request-body, mid-response, mid-stream) against apx serving apxtest.hostile_apps on the
# embedded CPython; then checks every handler ended with http.disconnect or CancelledError and
# that RSS, heap, open fds and Python's live objects stayed flat (DisconnectTest, bounds there).
#   bench/disconnects.sh [N] [3.11|3.12|3.13]
set -euo pipefail
cd "$(dirname "$0")/.."
source bin/jdk.sh
cases="${1:-100000}"
python="${2:-3.11}"
[ -x ".venv/py$python/bin/python" ] || bin/venvs
mvn -B -ntp -o -q test-compile
execution=default-test
[ "$python" = 3.11 ] || execution="py$python"
log="target/disconnects-$cases-py$python.log"
status=0
mvn -B -ntp -o surefire:test@"$execution" -Dtest=DisconnectTest -Dapx.disconnects="$cases" >"$log" 2>&1 || status=$?
grep -aE "DisconnectTest:|outcomes|after |Tests run:|Expecting|but was|\[ERROR\] .*DisconnectTest" "$log" | head -20 || true
echo "full log: $log (exit $status)"
exit "$status"
