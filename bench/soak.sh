#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/soak.sh — a long campaign against the real dev cluster, watched for leaks (issue #26).
#
#   bench/soak.sh --duration 30m [--out DIR] [--es-port P] [--bind-port P] [--rate DOCS_PER_S]
#
# One campaign of cells back to back (run.repeat of one cell: 3 local agents x 1 thread,
# batch 500, concurrency 3, open loop at --rate documents/s across the fleet, 5 s warmup + 55 s
# load per cell, the index recreated by every cell) against a 1-node OpenSearch dev cluster this
# script starts on its own ports and stops at the end. Every minute (SOAK_EVERY seconds) it
# records the coordinator's and every agent's resident memory (VmRSS), open file descriptors and
# threads (/proc/PID/status, /proc/PID/fd) in DIR/soak.tsv. At the end (DIR/soak.txt, also on
# stdout):
#   - per process and figure, the least-squares slope over the run after its first 10 % (start-
#     up: heaps, pools, the JIT of the cluster), per hour, and the noise (the standard deviation
#     of the residuals); FLAT when slope x measured span <= max(3 x noise, 2 % of the mean for
#     memory, 1 for descriptors and threads), else GROWS;
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
        -h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
python3 - "$OUT" "${RES:-}" "$rc" "$((T1 - T0))" <<'PY' | tee "$OUT/soak.txt"
import collections, json, os, statistics, sys
out, res, rc, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
fails = []
rows = collections.defaultdict(list)
with open(os.path.join(out, "soak.tsv")) as f:
    next(f)
    for line in f:
        t, name, pid, rss, fds, th = line.rstrip("\n").split("\t")
        if not rss:
            continue
        rows[(name, pid)].append((int(t), int(rss), int(fds), int(th)))
print(f"soak: wall {wall} s, coordinator exit {rc}, {sum(len(v) for v in rows.values())} probes")
if rc != 0:
    fails.append(f"coordinator exit {rc}")
def fit(ts, ys):
    n = len(ts)
    mt, my = sum(ts) / n, sum(ys) / n
    sxx = sum((t - mt) ** 2 for t in ts)
    b = sum((t - mt) * (y - my) for t, y in zip(ts, ys)) / sxx if sxx else 0.0
    res = [y - (my + b * (t - mt)) for t, y in zip(ts, ys)]
    return b, (statistics.pstdev(res) if n > 1 else 0.0), my
print(f"{'process':<12} {'figure':<8} {'first':>9} {'last':>9} {'mean':>10} {'slope/h':>10} {'noise':>8}  verdict")
for (name, pid), pts in sorted(rows.items()):
    if len(pts) < 5:
        print(f"{name:<12} pid {pid}: {len(pts)} probes, too few to judge")
        if name == "coordinator":
            fails.append("too few probes")
        continue
    t_end = pts[-1][0]
    keep = [p for p in pts if p[0] >= pts[0][0] + 0.1 * (t_end - pts[0][0])]
    ts = [p[0] for p in keep]
    span = ts[-1] - ts[0]
    for k, label, unit in ((1, "rss_kb", "kB"), (2, "fds", ""), (3, "threads", "")):
        ys = [p[k] for p in keep]
        b, noise, mean = fit(ts, ys)
        allow = max(3 * noise, 0.02 * mean if k == 1 else 1.0)
        grow = b * span
        ok = grow <= allow
        print(f"{name:<12} {label:<8} {pts[0][k]:>9} {pts[-1][k]:>9} {mean:>10.1f} "
              f"{b * 3600:>10.1f} {noise:>8.1f}  {'FLAT' if ok else 'GROWS'} "
              f"({grow:+.1f} over {span} s, allowed {allow:.1f})")
        if not ok:
            fails.append(f"{name} {label} grows {grow:+.1f} over {span} s")
if not res:
    fails.append("no results directory")
else:
    load_s = 0.0
    nrows = 0
    bad = 0
    cdir = os.path.join(res, "cells")
    for fn in sorted(os.listdir(cdir)):
        if not fn.endswith(".ndjson"):
            continue
        cid = fn[:-len(".ndjson")]
        with open(os.path.join(cdir, fn)) as f:
            r = json.loads(f.readline())
        path = os.path.join(cdir, fn)
        nrows += 1
        seen = set()
        dup = 0
        per = collections.Counter()
        for line in open(path):
            d = json.loads(line)
            if d.get("type") != "sample":
                continue
            key = (d.get("agent"), d.get("seq"), d.get("second"))
            if key in seen:
                dup += 1
            seen.add(key)
            per[d.get("agent")] += 1
        secs = float(r.get("warmup_s", 0)) + float(r.get("duration_s", 0))
        load_s += float(r.get("duration_s", 0) or 0)
        want = int(r.get("agents", 0)) * int(round(secs))
        got = sum(per.values())
        # each agent sends one sample per second of warmup + load (+ at most 2 around the ends)
        if dup or got < want or got > want + 3 * max(1, int(r.get("agents", 0))):
            bad += 1
            print(f"  cell {cid}: {got} samples written for {r.get('agents')} agents x "
                  f"{secs:.0f} s ({want}), {dup} written twice")
        if not r.get("verified", False):
            bad += 1
            print(f"  cell {cid}: not verified (docs_counted {r.get('docs_counted')}, "
                  f"ok {r.get('docs_ok_all', r.get('docs_ok'))})")
    print(f"soak: {nrows} cells, {load_s:.0f} s of load; cells with a sample or count problem: {bad}")
    if bad:
        fails.append(f"{bad} cells with a sample or count problem")
    def size(p):
        tot = 0
        for dp, _, fs in os.walk(p):
            tot += sum(os.path.getsize(os.path.join(dp, f)) for f in fs)
        return tot
    ch = max(load_s, 1.0) / 3600.0
    for part in ("cells", "telemetry", "."):
        b = size(os.path.join(res, part))
        print(f"results {part if part != '.' else 'all':<10} {b:>12} bytes, {b / ch / 1e6:8.2f} MB per cell-hour")
print("soak: PASS" if not fails else "soak: FAIL (" + "; ".join(fails) + ")")
sys.exit(0 if not fails else 1)
PY
