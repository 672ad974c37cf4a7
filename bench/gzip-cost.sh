#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gzip-cost — DESIGN §8: with gzip, the agent's CPU per document is <= 1.25x the cost of
# compressing the same bytes alone (same zlib, same level, same gzip framing).
#
#   bench/gzip-cost.sh [ROUNDS]        (default 3)
#   env: BF_BATCH (5000), BF_CONC (8), BF_GZIP_LEVEL (1), BF_DURATION (10s), BF_WARMUP (2s),
#        THREADS (nproc), BF_BUILD_DIR
#
# Agent: `bulkfleet-agent run` of bench/scenarios/sink-nginx.yaml with compression: gzip
# against the nginx null sink; its CPU (user + system, /usr/bin/time, the whole process from
# start to exit) divided by the documents it sent. Reference: the same renderer's bodies
# (`bulkfleet-agent render`, 40 bodies), each compressed alone with Python's zlib (the system
# libz the agent links) at the same level with gzip framing (wbits 31); CPU time of the
# compression calls only. One reference pass after every agent run; the ratio is per round,
# the median is reported. Prints one summary line (and the machine).
source "$(dirname "$0")/lib.sh"
ROUNDS=${1:-3}
export BF_BATCH=${BF_BATCH:-5000} BF_CONC=${BF_CONC:-8} BF_COMPRESSION=gzip
export BF_GZIP_LEVEL=${BF_GZIP_LEVEL:-1} BF_WARMUP=${BF_WARMUP:-2s} BF_DURATION=${BF_DURATION:-10s}
THREADS=${THREADS:-$(nproc)}
bench_build
PORT=$(free_port)
sink_start "$PORT" "$BF_BATCH"
export BF_TARGET="http://127.0.0.1:$PORT"
"$AGENT" render "$SCENARIO" --requests 40 > "$WORK/bodies.ndjson"
reference() {
    python3 - "$WORK/bodies.ndjson" "$BF_BATCH" "$BF_GZIP_LEVEL" > "$WORK/ref-$1.json" <<'PY'
import json, sys, time, zlib
path, batch, level = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = open(path, "rb").read().split(b"\n")[:-1]
per = 2 * batch  # action line + source line per document
bodies = [b"\n".join(lines[i:i + per]) + b"\n" for i in range(0, len(lines), per)]
cpu, wire = 0.0, 0
for b in bodies:
    t = time.process_time()
    z = zlib.compressobj(level, zlib.DEFLATED, 31)
    out = z.compress(b) + z.flush()
    cpu += time.process_time() - t
    wire += len(out)
docs = len(bodies) * batch
json.dump({"s_per_mdocs": cpu / docs * 1e6, "ratio": sum(map(len, bodies)) / wire}, sys.stdout)
PY
}
for r in $(seq 1 "$ROUNDS"); do
    agent_run "agent-$r" --threads "$THREADS"
    reference "$r"
done
python3 - "$WORK" "$ROUNDS" "$BF_GZIP_LEVEL" "$BF_CONC" "$THREADS" "$(machine)" <<'PY'
import json, statistics, sys
work, rounds, level, conc, threads, machine = sys.argv[1:7]
ratios, agents, refs = [], [], []
for r in range(1, int(rounds) + 1):
    a = json.load(open(f"{work}/agent-{r}.json"))
    ref = json.load(open(f"{work}/ref-{r}.json"))
    assert a["bad"] == 0, a
    s = a["cpu_s"] / a["docs"] * 1e6
    agents.append(s)
    refs.append(ref["s_per_mdocs"])
    ratios.append(s / ref["s_per_mdocs"])
    t = a["totals"]
    print(f"round {r}: agent {s:.2f} CPU s per million docs ({a['docs']:,} docs, {a['cpu_s']:.1f} s "
          f"CPU, {a['docs_per_s']:,.0f} docs/s, body {t['bytes_payload'] / t['req_ok'] / 2**20:.2f} "
          f"MiB -> compressed {ref['ratio']:.1f}x, peak RSS {a['maxrss_kib'] / 1024:.0f} MiB); "
          f"zlib alone {ref['s_per_mdocs']:.2f} s; ratio {s / ref['s_per_mdocs']:.2f}")
ratio = statistics.median(ratios)
print(f"machine: {machine}")
print(f"gzip-cost: level {level}, concurrency {conc}, {threads} threads: agent "
      f"{statistics.median(agents):.2f} CPU s per million docs, zlib alone "
      f"{statistics.median(refs):.2f} s, ratio {ratio:.2f} (median of {rounds}; min "
      f"{min(ratios):.2f}, max {max(ratios):.2f}; budget <= 1.25: {'PASS' if ratio <= 1.25 else 'FAIL'})")
PY
