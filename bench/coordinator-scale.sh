#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# coordinator-scale.sh — the coordinator's cost per sample as the fleet grows.
#
# For each fleet size, simulated agents (bench/bf_simagents.c: the real protocol over CURVE, one
# control + one data connection each, at most 500 per simulator process) run one cell against the
# real coordinator, which writes, aggregates and acknowledges every sample and polls the real
# cluster for telemetry. Measured per size, from /proc of the coordinator:
#   - CPU % of one core over the load window (utime + stime), and CPU µs per sample;
#   - peak RSS (VmHWM);
#   - that no sample was lost or duplicated (every (agent, seq) once in the cell's results, and
#     every sample the simulators sent acknowledged).
# Budgets: 1000 agents < 10 % of one core, 2000 agents < 20 %, CPU per sample at the
# largest size within 1.3x of the smallest, memory linear (the RSS added per agent from the middle
# to the largest size within 1.5x of the RSS added per agent from the smallest to the middle).
#
#   bench/coordinator-scale.sh [--agents 200,1000,2000] [--duration 60] [--build DIR]
#                              [--perf DIR] [--no-record]
#
# --perf DIR records `perf record -g` of the coordinator over each load window into
# DIR/coordinator-N.perf (read with perf report -i). Uses the cluster at $BF_TEST_ES when it
# answers, else starts a dev cluster on 127.0.0.1:9290. Appends the figures to bench/RESULTS.md
# unless --no-record. Exits 1 when a budget is missed or a sample was lost.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BF_BUILD_DIR:-$SRC/build}
SIZES=200,1000,2000
DURATION=60
RECORD=1
PERF_DIR=
while [ $# -gt 0 ]; do
    case $1 in
        --agents) SIZES=$2; shift 2 ;;
        --duration) DURATION=$2; shift 2 ;;
        --build) BUILD=$2; shift 2 ;;
        --perf) PERF_DIR=$2; shift 2 ;;
        --no-record) RECORD=0; shift ;;
        *) echo "usage: $0 [--agents N[,N...]] [--duration S] [--build DIR] [--perf DIR] [--no-record]" >&2; exit 2 ;;
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
# 2 connections per agent on the coordinator, plus the simulators' own
ulimit -n 65536 2> /dev/null || ulimit -n "$(ulimit -Hn)"

# the simulator: a CMake target (bench/CMakeLists.txt) when the build has it, else compiled here
SIM="$BUILD/bench/bf_simagents"
if ! cmake --build "$BUILD" --target bf_simagents > "$TMP/sim-build.log" 2>&1 || [ ! -x "$SIM" ]; then
    SIM="$TMP/bf_simagents"
    cc -std=c11 -O2 -D_GNU_SOURCE -I "$SRC/common/base" -I "$SRC/common/scenario" -I "$SRC/common/es" \
        -I "$SRC/common/wire" -I "$BUILD/proto" "$SRC/bench/bf_simagents.c" \
        -Wl,--start-group "$BUILD"/common/*/libbf_*.a -Wl,--end-group "$BUILD/proto/libbf_proto.a" \
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

# run_size N: one cell with N simulated agents; prints "key=value ..." for that size
run_size() {
    local agents=$1 dir="$TMP/n$1"
    mkdir -p "$dir"
    cat > "$dir/scale.yaml" <<YAML
name: scale
target:
  hosts: [$ES]
index:
  name: bf-scale-$$-$agents
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
  concurrency: [$agents]
YAML
    local port=$((21000 + RANDOM % 20000))
    "$COORD" run "$dir/scale.yaml" --agents "$agents" --bind "tcp://127.0.0.1:$port" \
        --keys "$TMP/keys/coord" --wait 300s --results "$dir/results" -q > "$dir/coord.out" 2> "$dir/coord.log" &
    local cpid=$!
    PIDS+=($cpid)
    # simulators: at most 500 agents per process, each with its own id prefix
    local sims=() left=$agents k=0
    while [ "$left" -gt 0 ]; do
        local n=$((left > 500 ? 500 : left))
        "$SIM" --coordinator "tcp://127.0.0.1:$port" --agents "$n" --keys "$TMP/keys/sim" \
            --prefix "sim$k" > "$dir/sim$k.out" 2> "$dir/sim$k.err" &
        sims+=($!)
        PIDS+=($!)
        left=$((left - n))
        k=$((k + 1))
    done
    # CPU ticks and peak RSS of the coordinator, once a second: "wall utime+stime vmhwm_kib"
    (
        while kill -0 $cpid 2> /dev/null; do
            read -r -a st < "/proc/$cpid/stat" 2> /dev/null || break
            hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$cpid/status" 2> /dev/null || echo 0)
            echo "$(date +%s.%N) $((st[13] + st[14])) ${hwm:-0}"
            sleep 1
        done
    ) > "$dir/cpu.txt" &
    PIDS+=($!)
    if [ -n "$PERF_DIR" ]; then
        mkdir -p "$PERF_DIR"
        # the load window starts when the first simulator prints load-start
        ( for _ in $(seq 1 600); do grep -q load-start "$dir"/sim*.out 2> /dev/null && break; sleep 0.2; done
          sleep 3
          perf record -g -F 499 -p $cpid -o "$PERF_DIR/coordinator-$agents.perf" -- sleep $((DURATION - 6 > 5 ? DURATION - 6 : 5)) \
              > /dev/null 2>&1 || true ) &
        PIDS+=($!)
    fi
    local rc=0 s coord_rc=0
    wait $cpid || coord_rc=$?   # 1: the simulated docs are not in the cluster (cell unverified)
    # the simulators end by themselves once every sample is acknowledged; a coordinator that
    # stopped early leaves them waiting, so give them a few seconds, then stop them
    for _ in $(seq 1 20); do
        local alive=0
        for s in "${sims[@]}"; do kill -0 "$s" 2> /dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 1
    done
    for s in "${sims[@]}"; do kill -TERM "$s" 2> /dev/null || true; wait "$s" || rc=$?; done
    curl -s -o /dev/null -X DELETE "$ES/bf-scale-$$-$agents" || true
    if [ $rc != 0 ]; then cat "$dir"/sim*.err "$dir/coord.log" >&2; echo "FAIL: simulator exit $rc ($agents agents)" >&2; return 1; fi
    if [ $coord_rc -gt 1 ]; then cat "$dir/coord.log" >&2; echo "FAIL: coordinator exit $coord_rc ($agents agents)" >&2; return 1; fi
    python3 - "$dir" "$agents" "$(getconf CLK_TCK)" <<'PY'
import glob, json, sys
d, agents, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
starts, ends, sent = [], [], 0
for f in glob.glob(f"{d}/sim*.out"):
    text = open(f).read()
    for l in text.splitlines():
        if l.startswith("load-start "): starts.append(float(l.split()[1]))
        if l.startswith("load-end "): ends.append(float(l.split()[1]))
    sent += int(text.split("samples sent ")[1].split()[0])
start, end = max(starts), min(ends)  # the window in which every simulator was loading
cpu = [tuple(map(float, l.split())) for l in open(f"{d}/cpu.txt") if l.strip()]
win = [c for c in cpu if start + 2 <= c[0] <= end]
(t0, k0, _), (t1, k1, _) = win[0], win[-1]
cpu_s = (k1 - k0) / hz
pct = 100.0 * cpu_s / (t1 - t0)
us_per_sample = cpu_s * 1e6 / (agents * (t1 - t0))  # one sample per agent per second
rss_mib = max(c[2] for c in cpu) / 1024.0
cell = glob.glob(f"{d}/results/scale-*/cells/*.ndjson")[0]
keys, dup = set(), 0
for l in open(cell):
    r = json.loads(l)
    if r.get("type") == "sample":
        k = (r["agent"], r["seq"])
        dup += k in keys
        keys.add(k)
print(f"agents={agents} cpu_pct={pct:.2f} us_per_sample={us_per_sample:.1f} rss_mib={rss_mib:.1f} "
      f"window_s={t1 - t0:.0f} samples_written={len(keys)} samples_sent={sent} duplicates={dup}")
if len(keys) != sent or dup:
    sys.exit("samples lost or duplicated")
PY
}

IFS=, read -r -a SIZE_LIST <<< "$SIZES"
: > "$TMP/results.txt"
for n in "${SIZE_LIST[@]}"; do
    line=$(run_size "$n") || { echo "FAIL at $n agents: $line" >&2; exit 1; }
    echo "$line" | tee -a "$TMP/results.txt"
done

VERDICT=$(python3 - "$TMP/results.txt" <<'PY'
import sys
rows = [dict(kv.split("=") for kv in l.split()) for l in open(sys.argv[1]) if l.strip()]
rows = [{k: float(v) for k, v in r.items()} for r in rows]
rows.sort(key=lambda r: r["agents"])
out, ok = [], True
for r in rows:
    budget = {1000: 10.0, 2000: 20.0}.get(int(r["agents"]))
    if budget is not None:
        good = r["cpu_pct"] < budget
        ok &= good
        out.append(f"{int(r['agents'])} agents {r['cpu_pct']:.2f} % < {budget:.0f} %: {'yes' if good else 'NO'}")
if len(rows) >= 2:
    ratio = rows[-1]["us_per_sample"] / rows[0]["us_per_sample"]
    good = ratio <= 1.3
    ok &= good
    out.append(f"CPU per sample {int(rows[-1]['agents'])} vs {int(rows[0]['agents'])} agents: "
               f"{ratio:.2f}x (<= 1.3x: {'yes' if good else 'NO'})")
if len(rows) >= 3:
    a, b, c = rows[0], rows[len(rows) // 2], rows[-1]
    m1 = (b["rss_mib"] - a["rss_mib"]) / (b["agents"] - a["agents"])
    m2 = (c["rss_mib"] - b["rss_mib"]) / (c["agents"] - b["agents"])
    good = m2 <= 1.5 * max(m1, 0.01)
    ok &= good
    out.append(f"RSS per added agent {m1 * 1024:.0f} KiB ({int(a['agents'])}->{int(b['agents'])}), "
               f"{m2 * 1024:.0f} KiB ({int(b['agents'])}->{int(c['agents'])}): linear {'yes' if good else 'NO'}")
print("; ".join(out))
print("PASS" if ok else "FAIL")
PY
)
echo "$VERDICT"

if [ $RECORD = 1 ]; then
    {
        echo
        echo "## coordinator-scale — $(date -u +%Y-%m-%dT%H:%MZ)"
        echo
        echo "- command: \`bench/coordinator-scale.sh --agents $SIZES --duration $DURATION\`"
        echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r); coordinator, simulators (≤ 500 agents per process) and the 1-node OpenSearch on the same host; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "- simulated agents: bench/bf_simagents.c, real protocol over CURVE, 2 connections each, one sample per agent per second for ${DURATION} s, each sample with two ~40-bucket histograms"
        echo
        echo "| agents | coordinator CPU % of one core | CPU µs per sample | peak RSS MiB | samples sent | written once | duplicates |"
        echo "|---:|---:|---:|---:|---:|---:|---:|"
        while read -r l; do
            eval "$l"
            echo "| $agents | $cpu_pct | $us_per_sample | $rss_mib | $samples_sent | $samples_written | $duplicates |"
        done < "$TMP/results.txt"
        echo
        echo "- budgets: $(echo "$VERDICT" | head -1) — $(echo "$VERDICT" | tail -1)"
    } >> "$SRC/bench/RESULTS.md"
    echo "recorded in bench/RESULTS.md"
fi
[ "$(echo "$VERDICT" | tail -1)" = PASS ]
