#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# agent_clientbound — client-bound measured where it happens: one worker
# thread building gzip'd 2000-document bodies for 8 connections to the benchmarks' nginx null
# sink is busy nearly all of every second, so the row is flagged client-bound with the figure
# (client_busy_pct, send_lag_ms, the reason), whatever the agent's CPU share of the host; the
# same agent against a slow server (the fault server, 1-2 s per request) is not. Then
# `bulkfleet-agent selftest` (bounded, no network) and `plan --agents N`, which warns when a
# target rate's per-agent share exceeds what selftest says one agent builds.
source "$(dirname "$0")/lib.sh"
source "$SRC/bench/lib.sh"
trap 'stop_fs; bench_cleanup; cleanup_tmp' EXIT

# scenario NAME PORT BATCH CONC [MATRIX-EXTRA]
scenario() {
    cat > "$TMP/$1.yaml" <<YAML
name: $1
target: {hosts: ["http://127.0.0.1:$2"]}
index: {name: cb-$1, recreate: false}
variables:
  - {name: id, type: sortable_id}
  - {name: n, type: range, from: 1, to: 100000}
document:
  id: \$[[id]]
  source: '{"n": \$[[n]], "message": "GET /index.html HTTP/1.1 200 \$[[n]] Mozilla/5.0 (X11; Linux x86_64)"}'
request: {compression: gzip, timeout: 5s}
run: {warmup: 1s, duration: 2s}
matrix: {batch_size: [$3], concurrency: [$4]${5:-}}
YAML
}
row() { python3 -c 'import glob, json, sys; print(json.dumps(json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]))' "$1"; }

# 1. the null sink answers at once: the one thread is the bottleneck
PORT=$(free_port)
sink_start "$PORT" 2000
scenario fast "$PORT" 2000 8
LOAD0=$(cut -d' ' -f1 /proc/loadavg)
set +e
timeout 60 "$AGENT" run "$TMP/fast.yaml" --threads 1 --results "$TMP/r-fast" > "$TMP/fast.out" 2> "$TMP/fast.err"
rc=$?
set -e
LOAD1=$(cut -d' ' -f1 /proc/loadavg)
[ "$rc" -ne 124 ] || fail "fast: the agent hung"
python3 - "$(row "$TMP/r-fast")" "$LOAD0" "$LOAD1" <<'PY' || { cat "$TMP/fast.err" >&2; fail "fast: not flagged client-bound"; }
import json, sys
r = json.loads(sys.argv[1])
# the host's load average during the cell, beside agent CPU: read by the agent every second;
# the 1-minute average moves by at most 1 - e^(-5/60) = 8 % of (runnable - load) per 5 s
# update, so over this 3 s cell it stays within 2 of what this script read before and after
lo, hi = sorted(float(v) for v in sys.argv[2:4])
print("host load average: before", sys.argv[2], "after", sys.argv[3], "row", r["host_load_avg"])
assert r["host_load_avg"] is not None and lo - 2 <= r["host_load_avg"] <= hi + 2, r
print("null sink, 1 thread, 8 connections: client_busy_pct", r["client_busy_pct"], "send_lag_ms",
      r["send_lag_ms"], "service_mean_ms", r["service_mean_ms"], "agent_cpu_pct", r["agent_cpu_pct"])
assert r["client_bound"] is True, r
# the thread hardly waits for the network, and connections wait for it: each request is sent
# later after its connection was free than the sink takes to answer it (on a shared 2-core
# host the busy share stays below 100 %: the sink and other processes take the cores too)
assert r["client_busy_pct"] >= 60, r
assert r["send_lag_ms"] is not None and r["send_lag_ms"] >= 0.25 * r["service_mean_ms"], r
assert "client-bound: the load generator limited this number" in r["reason"], r["reason"]
# where the thread's time went: four shares that add up to 100 %, a gzip
# cell spends some of it compressing, and the reason names the largest stage
st = [r["stage_render_pct"], r["stage_compress_pct"], r["stage_judge_pct"], r["stage_send_wait_pct"]]
print("stages render/compress/judge/send-wait %:", st)
assert all(v is not None and 0 <= v <= 100 for v in st), st
assert abs(sum(st) - 100) < 1e-6, st
assert r["stage_compress_pct"] > 0 and r["stage_render_pct"] > 0 and r["stage_judge_pct"] > 0, st
assert "; the cost is " in r["reason"] and "send/wait" in r["reason"], r["reason"]
PY
grep -q '"render_us"' "$(ls "$TMP"/r-fast/*/cells/*.ndjson | head -1)" || fail "fast: no render_us in the per-second series"
RDIR=$(dirname "$(ls "$TMP"/r-fast/*/matrix.json)")
"$COORD" report "$RDIR" > /dev/null 2> "$TMP/report.err" || { cat "$TMP/report.err" >&2; fail "report exit $?"; }
grep -q "worker time % render / gzip / judge / send-wait" "$RDIR/report.html" ||
    fail "fast: report.html has no stage shares"
grep -q "<th>agent CPU %</th><th>agent host load</th>" "$RDIR/report.html" ||
    fail "fast: report.html shows no host load beside agent CPU"
grep -q "client-bound" "$(ls "$TMP"/r-fast/*/matrix.md)" || fail "fast: matrix.md has no client-bound flag"
bench_cleanup

# 2. a slow server: the thread waits for the network, nothing is client-bound
FS_LOG="$TMP/slow.log"; : > "$FS_LOG"
python3 "$FS" --port 0 --mode slow --log "$FS_LOG" --max-lifetime 60 > "$TMP/fs.out" 2>&1 &
FS_PID=$!
FS_PORT=""
for _ in $(seq 1 100); do
    FS_PORT=$(awk '/^READY/{print $2}' "$TMP/fs.out" 2>/dev/null || true)
    [ -n "$FS_PORT" ] && break
    sleep 0.1
done
[ -n "$FS_PORT" ] || fail "fault server (slow) did not start"
scenario slow "$FS_PORT" 100 2
set +e
timeout 60 "$AGENT" run "$TMP/slow.yaml" --threads 1 --results "$TMP/r-slow" > "$TMP/slow.out" 2> "$TMP/slow.err"
set -e
python3 - "$(row "$TMP/r-slow")" <<'PY' || { cat "$TMP/slow.err" >&2; fail "slow: flagged client-bound"; }
import json, sys
r = json.loads(sys.argv[1])
print("slow server: client_busy_pct", r["client_busy_pct"], "send_lag_ms", r["send_lag_ms"],
      "service_mean_ms", r["service_mean_ms"])
assert r["client_bound"] is False, r
assert r["client_busy_pct"] < 50, r
# the thread waits for the network: send/wait is most of its time
print("stages render/compress/judge/send-wait %:", r["stage_render_pct"], r["stage_compress_pct"],
      r["stage_judge_pct"], r["stage_send_wait_pct"])
assert r["stage_send_wait_pct"] > 80, r
PY
stop_fs

# 3. selftest: bounded, no network (the scenario's host is a closed port)
scenario st 9 2000 8
t0=$(date +%s)
timeout 30 "$AGENT" selftest "$TMP/st.yaml" --threads 1 --seconds 1 > "$TMP/st.out" 2> "$TMP/st.err" ||
    { cat "$TMP/st.err" >&2; fail "selftest exit $?"; }
[ $(( $(date +%s) - t0 )) -lt 10 ] || fail "selftest took more than 10 s for --seconds 1"
cat "$TMP/st.out"
RATE=$(sed -n 's/.* docs_per_s=\([0-9]*\) .*/\1/p' "$TMP/st.out")
[ -n "$RATE" ] && [ "$RATE" -gt 0 ] || fail "selftest printed no docs_per_s"
set +e
"$AGENT" selftest "$TMP/st.yaml" --threads 0 > /dev/null 2> "$TMP/st0.err"
rc=$?
set -e
[ "$rc" = 2 ] && grep -q -- "--threads 0: expected 1" "$TMP/st0.err" || fail "selftest --threads 0: exit $rc"

# 4. plan: a target rate three times what one agent builds warns with one agent, not with four
scenario plan 9 2000 8 ", target_rate: [$((RATE * 3))]"
"$COORD" plan "$TMP/plan.yaml" --agents 1 --agent-docs-per-s "$RATE" > "$TMP/p1.out" 2> "$TMP/p1.err" || fail "plan exit $?"
grep -q "per agent with 1 agent, more than the $RATE docs/s one agent builds" "$TMP/p1.err" ||
    { cat "$TMP/p1.err" >&2; fail "plan --agents 1: no warning"; }
grep -q "use --agents 3 or more" "$TMP/p1.err" || { cat "$TMP/p1.err" >&2; fail "plan: no advice"; }
"$COORD" plan "$TMP/plan.yaml" --agents 4 --agent-docs-per-s "$RATE" > "$TMP/p4.out" 2> "$TMP/p4.err" || fail "plan exit $?"
! grep -q "one agent builds" "$TMP/p4.err" || { cat "$TMP/p4.err" >&2; fail "plan --agents 4 warned"; }
# without the figure, plan runs the selftest on this host itself
"$COORD" plan "$TMP/plan.yaml" --agents 1 > "$TMP/p0.out" 2> "$TMP/p0.err" || fail "plan exit $?"
grep -q "selftest on this host for cell" "$TMP/p0.out" || { cat "$TMP/p0.out" >&2; fail "plan: no selftest"; }
pass "client-bound: flagged from the thread's busy share with its figures, not against a slow server; selftest and plan --agents"
