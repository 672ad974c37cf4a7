#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# coordinator-scale.sh — DESIGN §8: "the coordinator aggregates 200 agents' samples at 1/s using
# < 5% of one core". 200 simulated agents (bench/bf_simagents.c: real protocol, CURVE, one
# control + one data connection each) run one 60 s cell against the real coordinator, which
# writes, aggregates and acknowledges every sample and polls the real cluster for telemetry.
# Measured: the coordinator's CPU (utime + stime from /proc) over the load window, and that no
# sample is lost (every sample acknowledged, every (agent, seq) once in the cell's results).
#
#   bench/coordinator-scale.sh [--agents 200] [--duration 60] [--build DIR] [--no-record]
#
# Uses the cluster at $BF_TEST_ES when it answers, else starts a dev cluster on 127.0.0.1:9290.
# Appends the figure to bench/RESULTS.md unless --no-record.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BF_BUILD_DIR:-$SRC/build}
AGENTS=200
DURATION=60
RECORD=1
while [ $# -gt 0 ]; do
    case $1 in
        --agents) AGENTS=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --build) BUILD=$2; shift 2 ;;
        --no-record) RECORD=0; shift ;;
        *) echo "usage: $0 [--agents N] [--duration S] [--build DIR] [--no-record]" >&2; exit 2 ;;
    esac
done
COORD="$BUILD/coordinator/bulkfleet-coordinator"
[ -x "$COORD" ] || { echo "build first: cmake -S . -B $BUILD && cmake --build $BUILD" >&2; exit 2; }
TMP=$(mktemp -d /tmp/bf-scale.XXXXXX)
PIDS=()
DC_STARTED=0
cleanup() {
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2> /dev/null || true; done
    sleep 0.5
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2> /dev/null || true; done
    [ $DC_STARTED = 1 ] && "$SRC/scripts/devcluster.sh" stop --state-dir "$TMP/dc" > /dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT
ulimit -n 65536 2> /dev/null || true

# the simulator: a CMake target (bench/CMakeLists.txt) when the build has it, else compiled here
SIM="$BUILD/bench/bf_simagents"
if ! cmake --build "$BUILD" --target bf_simagents > "$TMP/sim-build.log" 2>&1 || [ ! -x "$SIM" ]; then
    SIM="$TMP/bf_simagents"
    cc -std=c11 -O2 -D_GNU_SOURCE -I "$SRC/common" -I "$BUILD/proto" "$SRC/bench/bf_simagents.c" \
        "$BUILD/common/libbf_common.a" "$BUILD/proto/libbf_proto.a" \
        $(pkg-config --libs libzmq libprotobuf-c libcurl yaml-0.1 zlib jansson) -lpthread -lm -o "$SIM"
fi

ES=${BF_TEST_ES:-}
if [ -z "$ES" ] || ! curl -sf -o /dev/null "$ES/"; then
    ES=$("$SRC/scripts/devcluster.sh" start --nodes 1 --http-port 9290 --state-dir "$TMP/dc" | head -1)
    DC_STARTED=1
fi

mkdir -p "$TMP/keys"
"$COORD" keygen "$TMP/keys/coord" > /dev/null
"$BUILD/agent/bulkfleet-agent" keygen "$TMP/keys/sim" > /dev/null
cp "$TMP/keys/coord/coordinator.pub" "$TMP/keys/sim/"
cp "$TMP/keys/sim/agent.pub" "$TMP/keys/coord/agents/sim.pub"
cat > "$TMP/scale.yaml" <<YAML
name: scale
target:
  hosts: [$ES]
index:
  name: bf-scale
  recreate: true
variables:
  - {name: uuid, type: uuid}
document:
  action: create
  id: \$[[uuid]]
  source: '{"u": "\$[[uuid]]"}'
run: {warmup: 1s, duration: ${DURATION}s}
matrix:
  batch_size: [500]
  concurrency: [$AGENTS]
YAML

PORT=$((21000 + RANDOM % 20000))
"$COORD" run "$TMP/scale.yaml" --agents "$AGENTS" --bind "tcp://127.0.0.1:$PORT" \
    --keys "$TMP/keys/coord" --wait 60s --results "$TMP/results" -q > "$TMP/coord.out" 2> "$TMP/coord.log" &
CPID=$!
PIDS+=($CPID)
"$SIM" --coordinator "tcp://127.0.0.1:$PORT" --agents "$AGENTS" --keys "$TMP/keys/sim" \
    > "$TMP/sim.out" 2> "$TMP/sim.err" &
SPID=$!
PIDS+=($SPID)

# CPU ticks of the coordinator, once a second: "wall utime+stime"
(
    while kill -0 $CPID 2> /dev/null; do
        read -r -a st < "/proc/$CPID/stat" 2> /dev/null || break
        echo "$(date +%s.%N) $((st[13] + st[14]))"
        sleep 1
    done
) > "$TMP/cpu.txt" &
PIDS+=($!)

SIM_RC=0
wait $SPID || SIM_RC=$?
COORD_RC=0
wait $CPID || COORD_RC=$?   # 1: the simulated docs are not in the cluster (cell unverified)
cat "$TMP/sim.out"
[ $SIM_RC = 0 ] || { cat "$TMP/sim.err" "$TMP/coord.log" >&2; echo "FAIL: simulator exit $SIM_RC" >&2; exit 1; }
[ $COORD_RC -le 1 ] || { cat "$TMP/coord.log" >&2; echo "FAIL: coordinator exit $COORD_RC" >&2; exit 1; }

RESULT=$(python3 - "$TMP" "$AGENTS" "$(getconf CLK_TCK)" <<'PY'
import glob, json, sys
tmp, agents, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sim = dict(l.split(" ", 1) for l in open(f"{tmp}/sim.out") if l.startswith("load-"))
start, end = float(sim["load-start"]), float(sim["load-end"])
cpu = [tuple(map(float, l.split())) for l in open(f"{tmp}/cpu.txt") if l.strip()]
win = [c for c in cpu if start + 2 <= c[0] <= end]
(t0, k0), (t1, k1) = win[0], win[-1]
pct = 100.0 * (k1 - k0) / hz / (t1 - t0)
whole = 100.0 * (cpu[-1][1] - cpu[0][1]) / hz / (cpu[-1][0] - cpu[0][0])
cell = glob.glob(f"{tmp}/results/scale-*/cells/*.ndjson")[0]
keys, dup = set(), 0
for l in open(cell):
    r = json.loads(l)
    if r.get("type") == "sample":
        k = (r["agent"], r["seq"])
        dup += k in keys
        keys.add(k)
sent = int(open(f"{tmp}/sim.out").read().split("samples sent ")[1].split()[0])
print(f"cpu_pct={pct:.2f} whole_pct={whole:.2f} window_s={t1 - t0:.0f} samples_written={len(keys)} "
      f"samples_sent={sent} duplicates={dup}")
assert len(keys) == sent and dup == 0, "samples lost or duplicated"
PY
) || { echo "FAIL: $RESULT" >&2; exit 1; }
echo "$RESULT"
eval "$RESULT"
echo "coordinator CPU over the load window: $cpu_pct % of one core ($AGENTS agents, 1 sample/s each)"
OK=$(python3 -c "print('yes' if $cpu_pct < 5.0 else 'NO')")

if [ $RECORD = 1 ]; then
    cat >> "$SRC/bench/RESULTS.md" <<MD

## coordinator-scale — $(date -u +%Y-%m-%dT%H:%MZ)

- command: \`bench/coordinator-scale.sh --agents $AGENTS --duration $DURATION\`
- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r); coordinator, simulator and the 1-node OpenSearch on the same host
- $AGENTS simulated agents (bench/bf_simagents.c, real protocol over CURVE, 2 connections each), one sample per agent per second for ${DURATION} s, each sample with two ~40-bucket histograms
- **coordinator CPU over the load window: $cpu_pct % of one core** (budget < 5 %: $OK); whole run incl. startup and CURVE handshakes: $whole_pct %
- samples: $samples_sent sent, $samples_written written once each, $duplicates duplicates, none lost
MD
    echo "recorded in bench/RESULTS.md"
fi
[ "$OK" = yes ]
