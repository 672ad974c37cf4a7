#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/soak.sh — a long campaign against the real dev cluster, watched for leaks.
#
#   bench/soak.sh --duration 30m [--out DIR] [--es-port P] [--bind-port P] [--rate DOCS_PER_S]
#
# One campaign of cells back to back (run.repeat of one cell: 3 local agents x 1 thread,
# batch 500, concurrency 3, open loop at --rate documents/s across the fleet, 5 s warmup + 55 s
# load per cell, the index recreated by every cell) against a 1-node OpenSearch dev cluster this
# script starts on its own ports and stops at the end. Every minute (SOAK_EVERY seconds) it
# records the coordinator's and every agent's resident memory (VmRSS), open file descriptors and
# threads (/proc/PID/status, /proc/PID/fd) in DIR/soak.tsv. At the end (DIR/soak.txt, also on
# stdout; the verdict is bench/soak_judge.py's, described there):
#   - per process and figure, the least-squares slope over the run after its first 10 % (start-
#     up: heaps, pools, the JIT of the cluster), per hour, and the noise (the standard deviation
#     of the residuals); FLAT when slope x measured span <= max(3 x noise, 2 % of the mean for
#     memory, 1 for descriptors and threads); PLATEAU (passes) when it rose but its last half is
#     flat within 0.5 % (a heap's high-water mark); else GROWS. The coordinator's memory is
#     judged less the results rows it keeps by design, one per finished cell (their size is
#     what `plan` states: "coordinator memory for rows"); its raw RSS is shown beside;
#   - samples: per cell, the sample lines in cells/<cell>.ndjson against the agent-seconds the
#     row says were sent (agents x seconds of the cell), and that no (agent, seq) is written
#     twice;
#   - the results' bytes per cell-hour (cells/, telemetry/, all).
# Last line: "soak: PASS" or "soak: FAIL (<what>)"; exit 0 / 1.
#
# Modest load on purpose (the 2-vCPU test machine is shared): 2000 documents/s by default.
# Binaries: BF_BUILD_DIR (default build/), copied into DIR/bin first so a rebuild during a long
# run does not change what runs. Traffic only to 127.0.0.1; bounded by --duration (the
# campaign's cells are counted from it) plus a 10-minute grace, after which it is interrupted.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BF_BUILD_DIR:-$SRC/build}
DURATION=30m
OUT=""
ES_PORT=19400
BIND_PORT=19402
RATE=2000
EVERY=${SOAK_EVERY:-60}
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) DURATION=${2:?--duration needs a value (30m, 2h, 900s)}; shift 2 ;;
        --out) OUT=${2:?--out needs a directory}; shift 2 ;;
        --es-port) ES_PORT=${2:?}; shift 2 ;;
        --bind-port) BIND_PORT=${2:?}; shift 2 ;;
        --rate) RATE=${2:?}; shift 2 ;;
        -h | --help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "soak: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
secs_of() {
    case "$1" in
        *h) echo $((${1%h} * 3600)) ;;
        *m) echo $((${1%m} * 60)) ;;
        *s) echo "${1%s}" ;;
        *[!0-9]*) echo "soak: --duration '$1': write 30m, 2h or 900s" >&2; exit 2 ;;
        *) echo "$1" ;;
    esac
}
DUR_S=$(secs_of "$DURATION")
[ "$DUR_S" -ge 120 ] || { echo "soak: --duration must be at least 2m" >&2; exit 2; }
[ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/bf-soak.XXXXXX")
mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
for b in coordinator/bulkfleet-coordinator agent/bulkfleet-agent; do
    [ -x "$BUILD/$b" ] || { echo "soak: $BUILD/$b missing (cmake --build build)" >&2; exit 2; }
    cp "$BUILD/$b" "$OUT/bin/"
done
COORD="$OUT/bin/bulkfleet-coordinator"
STATE="$OUT/cluster"
ES="http://127.0.0.1:$ES_PORT"
CPID=""
cleanup() {
    if [ -n "$CPID" ] && kill -0 "$CPID" 2>/dev/null; then
        kill -INT "$CPID" 2>/dev/null || true
        wait "$CPID" 2>/dev/null || true
    fi
    "$SRC/scripts/devcluster.sh" stop --state-dir "$STATE" > /dev/null 2>&1 || true
}
trap cleanup EXIT
log() { echo "soak: $*" | tee -a "$OUT/soak.log" >&2; }

log "$(date -u +%FT%TZ) duration ${DUR_S}s, $RATE docs/s, cluster $ES, results in $OUT"
BF_DEVCLUSTER_MAX_LIFETIME=$((DUR_S + 1800)) "$SRC/scripts/devcluster.sh" start --nodes 1 \
    --http-port "$ES_PORT" --transport-port $((ES_PORT + 1000)) --state-dir "$STATE" \
    > "$OUT/cluster.out" 2> "$OUT/cluster.err" || { cat "$OUT/cluster.err" >&2; exit 3; }

CELL_S=64 # 5 s warmup + 55 s load + about 4 s of setup, final samples and _count
REPEAT=$(( (DUR_S + CELL_S / 2) / CELL_S ))
[ "$REPEAT" -ge 1 ] || REPEAT=1
[ "$REPEAT" -le 1000 ] || REPEAT=1000
cat > "$OUT/scenario.yaml" <<YAML
name: soak
target:
  hosts: [$ES]
index:
  name: bf-soak
  recreate: true
  settings: {number_of_shards: 1, number_of_replicas: 0, refresh_interval: 5s}
variables:
  - {name: n, type: range, from: 1, to: 1000000}
  - {name: w, type: list, data: [alpha, beta, gamma, delta]}
document:
  action: index
  source: '{"n": \$[[n]], "word": "\$[[w]]", "msg": "soak \$[[n]] \$[[w]]"}'
run: {warmup: 5s, first_warmup: 5s, duration: 55s, repeat: $REPEAT, target_rate: $RATE, seed: 26}
matrix:
  batch_size: [500]
  concurrency: [3]
YAML

# what the coordinator keeps per finished cell on purpose (a results row each, for matrix.json
# and the median of the repetitions; `plan` states its size): subtracted from its RSS before the
# leak verdict, so that a leak is not hidden in it nor the rows taken for one
"$COORD" plan "$OUT/scenario.yaml" > "$OUT/plan.txt" 2> /dev/null ||
    { echo "soak: plan $OUT/scenario.yaml failed" >&2; exit 3; }
ROW_BYTES=$(python3 "$SRC/bench/soak_judge.py" --row-bytes "$OUT/plan.txt") || exit 3
log "a finished cell's row kept by the coordinator: $ROW_BYTES bytes"

T0=$(date +%s)
"$COORD" run "$OUT/scenario.yaml" --local-agents 3 --threads 1 --insecure \
    --bind "tcp://127.0.0.1:$BIND_PORT" --results "$OUT/results" -q \
    > "$OUT/coordinator.out" 2> "$OUT/coordinator.err" &
CPID=$!
printf 't_s\tproc\tpid\trss_kb\tfds\tthreads\n' > "$OUT/soak.tsv"
# one line per process: the coordinator and each agent it started (its children)
probe() {
    local t=$1 pid name
    for pid in $CPID $(pgrep -P "$CPID" 2> /dev/null || true); do
        [ -r "/proc/$pid/status" ] || continue
        if [ "$pid" = "$CPID" ]; then
            name=coordinator
        else
            name=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null |
                grep -o -- '--id [^ ]*' | cut -d' ' -f2 || true)
            [ -n "$name" ] || name="agent-$pid"
        fi
        awk -v t="$t" -v n="$name" -v p="$pid" -v fds="$(ls "/proc/$pid/fd" 2> /dev/null | wc -l)" \
            '/^VmRSS:/ {r = $2} /^Threads:/ {th = $2}
             END {printf "%s\t%s\t%s\t%s\t%s\t%s\n", t, n, p, r, fds, th}' \
            "/proc/$pid/status" >> "$OUT/soak.tsv" 2> /dev/null || true
    done
}
DEADLINE=$((T0 + DUR_S + 600))
next=$T0
while kill -0 "$CPID" 2> /dev/null; do
    now=$(date +%s)
    if [ "$now" -ge "$next" ]; then
        probe $((now - T0))
        next=$((next + EVERY))
    fi
    if [ "$now" -ge "$DEADLINE" ]; then
        log "still running $((now - T0)) s after the start: interrupting the campaign"
        kill -INT "$CPID" 2> /dev/null || true
        break
    fi
    sleep 2
done
rc=0
wait "$CPID" || rc=$?
CPID=""
T1=$(date +%s)
log "$(date -u +%FT%TZ) coordinator exit $rc after $((T1 - T0)) s"
RES=$(ls -d "$OUT"/results/soak-* 2> /dev/null | head -1 || true)
python3 "$SRC/bench/soak_judge.py" "$OUT" "${RES:-}" "$rc" "$((T1 - T0))" "$ROW_BYTES" "$T0" |
    tee "$OUT/soak.txt"
exit "${PIPESTATUS[0]}"
