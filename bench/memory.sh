#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# memory — docs/internals/budgets.md: agent memory stays <= concurrency x body size + 64 MiB.
#
#   bench/memory.sh                    env: CONCS ("8 64"), BF_BATCH (5000), BF_DURATION (6s),
#                                           BF_WARMUP (2s), THREADS (nproc), BF_BUILD_DIR
#
# Peak RSS (/usr/bin/time %M, the kernel's high-water mark) of `bulkfleet-agent run` against the
# nginx null sink, for each concurrency, uncompressed and gzip; body size = one uncompressed
# body as the agent's renderer makes it. The null sink answers full item responses (about 1
# MB per 5000 documents), which the agent judges as they arrive without keeping them. Prints
# one line per run and a summary line.
source "$(dirname "$0")/lib.sh"
CONCS=${CONCS:-"8 64"}
export BF_BATCH=${BF_BATCH:-5000} BF_WARMUP=${BF_WARMUP:-2s} BF_DURATION=${BF_DURATION:-6s}
THREADS=${THREADS:-$(nproc)}
bench_build
PORT=$(free_port)
sink_start "$PORT" "$BF_BATCH"
export BF_TARGET="http://127.0.0.1:$PORT"
"$AGENT" render "$SCENARIO" > "$WORK/body.ndjson"
runs=""
for conc in $CONCS; do
    for comp in none gzip; do
        BF_CONC=$conc BF_COMPRESSION=$comp agent_run "mem-$conc-$comp" --threads "$THREADS"
        runs="$runs $conc:$comp"
    done
done
python3 - "$WORK" "$(machine)" $runs <<'PY'
import json, os, sys
work, machine, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
body = os.path.getsize(f"{work}/body.ndjson")
worst = 0.0
for run in runs:
    conc, comp = run.split(":")
    a = json.load(open(f"{work}/mem-{conc}-{comp}.json"))
    budget = int(conc) * body / 2**20 + 64
    rss = a["maxrss_kib"] / 1024
    worst = max(worst, rss / budget)
    assert a["bad"] == 0, a
    print(f"concurrency {conc}, {comp}: peak RSS {rss:.0f} MiB, budget {budget:.0f} MiB "
          f"({rss / budget:.2f} of it; {a['docs_per_s']:,.0f} docs/s)")
print(f"machine: {machine}")
print(f"memory: body {body / 2**20:.2f} MiB; worst peak RSS / (concurrency x body + 64 MiB) = "
      f"{worst:.2f} (budget <= 1.00: {'PASS' if worst <= 1 else 'FAIL'})")
PY
