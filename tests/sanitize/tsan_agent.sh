#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tsan_agent.sh AGENT — the standalone agent built with ThreadSanitizer, 4 worker threads plus the
# sampler, against tests/support/fault_server.py in "mixed" mode (acknowledged, rejected and
# failed items, so every counting path runs) for 1 s warmup + 3 s. Fails on any ThreadSanitizer
# report (halt_on_error: the first one ends the run with exit 66) and on an agent that does not
# finish within 60 s. Writes only under $BF_SAN_DIR (default: a folder next to AGENT).
set -euo pipefail
AGENT=${1:?usage: tsan_agent.sh PATH/TO/bulkfleet-agent (built with -DBF_TSAN=ON)}
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
T="${BF_SAN_DIR:-$(dirname "$AGENT")/tsan-run}"
rm -rf "$T"
mkdir -p "$T"
FS_PID=""
trap '[ -n "$FS_PID" ] && kill "$FS_PID" 2>/dev/null; wait 2>/dev/null || true' EXIT
python3 "$SRC/tests/support/fault_server.py" --port 0 --mode mixed --log "$T/fs.log" \
    --max-lifetime 120 > "$T/fs.out" 2>&1 &
FS_PID=$!
PORT=""
for _ in $(seq 1 100); do
    PORT=$(awk '/^READY/{print $2}' "$T/fs.out" 2>/dev/null || true)
    [ -n "$PORT" ] && break
    sleep 0.1
done
[ -n "$PORT" ] || { cat "$T/fs.out" >&2; echo "tsan_agent: the fault server did not start" >&2; exit 1; }
cat > "$T/tsan.yaml" <<YAML
name: tsan
target:
  hosts: [http://127.0.0.1:$PORT]
index: {name: tsan, recreate: true}
variables:
  - {name: id, type: sortable_id}
  - {name: n, type: range, from: 1, to: 1000}
document:
  action: create
  id: \$[[id]]
  source: '{"n": \$[[n]]}'
request: {timeout: 2s, compression: gzip}
run: {warmup: 1s, duration: 3s, seed: 7}
matrix:
  batch_size: [100]
  concurrency: [8]
YAML
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 log_path=$T/tsan"
set +e
timeout 60 "$AGENT" run "$T/tsan.yaml" --threads 4 --results "$T/results" > "$T/agent.out" 2> "$T/agent.err"
rc=$?
set -e
reports=$(cat "$T"/tsan.* 2>/dev/null | grep -c 'WARNING: ThreadSanitizer' || true)
if [ "$rc" = 124 ]; then
    tail -20 "$T/agent.err" >&2; echo "tsan_agent: the agent did not finish within 60 s" >&2; exit 1
fi
if [ "$reports" != 0 ] || [ "$rc" = 66 ]; then
    cat "$T"/tsan.* >&2
    echo "tsan_agent: ThreadSanitizer reported $reports problem(s) (report files: $T/tsan.*)" >&2
    exit 1
fi
# the mixed server rejects and fails items: exit 1 (flagged rows) is expected, 2/3 are not
if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
    tail -20 "$T/agent.err" >&2; echo "tsan_agent: the agent exited $rc" >&2; exit 1
fi
grep -q '"bulk"' "$T/fs.log" 2>/dev/null || grep -q . "$T/fs.log" ||
    { echo "tsan_agent: the fault server saw no request" >&2; exit 1; }
echo "tsan_agent: no ThreadSanitizer report ($(wc -l < "$T/fs.log") requests, agent exit $rc)"
