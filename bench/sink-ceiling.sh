#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sink-ceiling — docs/internals/budgets.md: against the null sink on one machine, the agent sends >= 0.8x the
# docs/s that wrk reaches replaying one prebuilt body of the same documents (the no-generation
# ceiling), uncompressed.
#
#   bench/sink-ceiling.sh [ROUNDS]      (default 3; each round runs wrk, then the agent)
#   env: BF_BATCH (5000), BF_CONC (8), BF_DURATION (10s), BF_WARMUP (2s), THREADS (nproc),
#        BF_BUILD_DIR (an existing build instead of build-bench/), SINK_CPUS and LOAD_CPUS
#        (taskset CPU lists: the nginx sink on some cores, wrk and the agent on the others;
#        THREADS then defaults to the number of LOAD_CPUS)
#
# Documents: bench/scenarios/sink-nginx.yaml (nginx access-log events, ~585 bytes a document
# with its action line). The agent runs standalone (`bulkfleet-agent run`), renders every body
# and judges every response; wrk sends the first body the agent's renderer produces, over the
# same number of connections and threads, to the same nginx (one worker). The ratio is taken
# per round (the two run back to back, so they share the machine's weather) and the median
# is reported. Prints one summary line (and the machine).
source "$(dirname "$0")/lib.sh"
ROUNDS=${1:-3}
export BF_BATCH=${BF_BATCH:-5000} BF_CONC=${BF_CONC:-8} BF_COMPRESSION=none
export BF_WARMUP=${BF_WARMUP:-2s} BF_DURATION=${BF_DURATION:-10s}
THREADS=${THREADS:-$(if [ -n "${LOAD_CPUS:-}" ]; then taskset -c "$LOAD_CPUS" nproc; else nproc; fi)}
bench_build
PORT=$(free_port)
sink_start "$PORT" "$BF_BATCH"
export BF_TARGET="http://127.0.0.1:$PORT"
"$AGENT" render "$SCENARIO" > "$WORK/body.ndjson"
for r in $(seq 1 "$ROUNDS"); do
    wrk_run "wrk-$r" "$WORK/body.ndjson" "$THREADS" "$BF_CONC" "$BF_DURATION" "$BF_TARGET/_bulk"
    agent_run "agent-$r" --threads "$THREADS"
done
python3 - "$WORK" "$ROUNDS" "$BF_BATCH" "$BF_CONC" "$THREADS" "$(machine)" <<'PY'
import json, os, statistics, sys
work, rounds, batch, conc, threads, machine = sys.argv[1:7]
rounds, batch, conc = int(rounds), int(batch), int(conc)
body = os.path.getsize(f"{work}/body.ndjson")
ratios, agents, wrks, rss = [], [], [], []
for r in range(1, rounds + 1):
    w = json.load(open(f"{work}/wrk-{r}.json"))
    a = json.load(open(f"{work}/agent-{r}.json"))
    wd = w["requests_per_s"] * batch
    ratios.append(a["docs_per_s"] / wd)
    agents.append(a["docs_per_s"])
    wrks.append(wd)
    rss.append(a["maxrss_kib"] / 1024)
    assert w["non_2xx"] == 0 and a["bad"] == 0, (w, a)
    print(f"round {r}: wrk {wd:,.0f} docs/s (cpu {w['cpu_s']:.1f} s); agent {a['docs_per_s']:,.0f} "
          f"docs/s (cpu {a['cpu_s']:.1f} s, {a['agent_cpu_pct']:.0f}% of {threads} threads, service "
          f"p50 {a['service_p50_ms']:.1f} ms, peak RSS {a['maxrss_kib'] / 1024:.0f} MiB); "
          f"ratio {a['docs_per_s'] / wd:.2f}")
ratio = statistics.median(ratios)
budget_mib = conc * body / 2**20 + 64
print(f"machine: {machine}")
pin = (f"; sink on CPUs {os.environ.get('SINK_CPUS', 'any')}, load on CPUs "
       f"{os.environ.get('LOAD_CPUS', 'any')}") if os.environ.get('SINK_CPUS') or os.environ.get('LOAD_CPUS') else ""
print(f"sink-ceiling: batch {batch} (body {body / 2**20:.2f} MiB), concurrency {conc}, {threads} "
      f"threads{pin}: agent {statistics.median(agents):,.0f} docs/s, wrk {statistics.median(wrks):,.0f} "
      f"docs/s, ratio {ratio:.2f} (median of {rounds}; min {min(ratios):.2f}, max {max(ratios):.2f}; "
      f"budget >= 0.80: {'PASS' if ratio >= 0.8 else 'FAIL'}); agent peak RSS {max(rss):.0f} MiB "
      f"vs concurrency x body + 64 MiB = {budget_mib:.0f} MiB "
      f"({'PASS' if max(rss) <= budget_mib else 'FAIL'})")
PY
