#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_findmax_client — find-max when the client, not the cluster, misses the target.
# The fault server in capacity mode (4000 docs/s, every request 5 ms on its own) answers each
# request 400 ms later from the 5th index creation on (--slow-after-creates: a far-away link;
# the same capacity): the closed-loop steps (1-4) find the knee at 2 connections, and the first
# open-loop step at ~4000 docs/s with 4 connections can send only ~940, its requests waiting
# for a connection (latency p50 seconds, service p50 ~0.4 s). find-max must add connections at
# the same target (verdict client-bound) instead of stepping the target down to what 4
# connections send, and state the answer only after a repeat of the step that held held too
# (verdict confirmed): the answer lies within 15 % of the capacity. Before, it stepped down 5
# times at 4 connections and found nothing. No cluster; about 70 s.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
CAPACITY=4000
FS=$(free_port)
python3 "$SRC/tests/support/fault_server.py" --port "$FS" --mode capacity --capacity $CAPACITY \
    --queue-ms 1000 --base-ms 5 --slow-after-creates 5=400 --log fs.log --max-lifetime 400 \
    > fs.out 2>&1 &
FSP=$!
trap 'kill $FSP 2>/dev/null; cleanup_tmp' EXIT
for _ in $(seq 50); do grep -q READY fs.out && break; sleep 0.1; done
grep -q READY fs.out || fail "fault server did not start: $(cat fs.out)"
cat > far.yaml <<YAML
name: far
target: {hosts: [http://127.0.0.1:$FS]}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 2s}
find_max: {batch_start: 100, batch_max: 100, concurrency_max: 64, sustain: 5s, step_down_pct: 5,
  max_time: 5m}
YAML
P=$(free_port)
timeout 400 "$COORD" find-max far.yaml --local-agents 1 --bind "tcp://127.0.0.1:$P" --results res \
    -q > fm.out 2> fm.err || { rc=$?; cat fm.err fm.out >&2; fail "find-max exit $rc"; }
cat fm.out
python3 - res $CAPACITY <<'PY' || { grep "find-max" fm.err | tail -20 >&2; fail "find-max took the client's limit for the cluster's"; }
import glob, json, sys
d = glob.glob(sys.argv[1] + "/far-*")[0]
cap = float(sys.argv[2])
(c,) = json.load(open(d + "/findmax.json"))["combinations"]
steps = c["steps"]
for s in steps:
    print(s["step"], s["phase"], "c%d" % s["concurrency"], "target %.0f" % s["target_rate"],
          "%.0f docs/s" % s["docs_per_s"], "lat p50", s["latency_p50_ms"], "svc p50",
          s["service_p50_ms"], s["verdict"])
sus = [s for s in steps if s["phase"] == "sustain"]
assert steps[0]["phase"] == "batch" and steps[1]["phase"] == "concurrency", steps
# the bisection midpoint 3, flat at capacity, is a clear knee: its +2.5 % threshold gets half
# the unclear band, and a flat ratio lies outside it (no repeats; the slow link is timed for
# this: sustain's first step is the 5th index creation)
assert steps[3]["phase"] == "bisect" and steps[3]["verdict"] == "knee", steps[3]
client = [s for s in sus if s["verdict"] == "client-bound"]
assert client, "no sustain step was called client-bound"
first = sus[0]
assert first["verdict"] == "client-bound" and first["concurrency"] == 4, first
assert first["latency_p50_ms"] >= 4 * first["service_p50_ms"], first
# the target is kept while connections are added
assert sus[1]["target_rate"] == first["target_rate"] and sus[1]["concurrency"] == 8, sus[1]
# the answer: a step that held and its repeat that held too
assert c["found"] and c["confirmed"], c
assert [s["verdict"] for s in sus[-2:]] == ["held", "confirmed"], sus[-2:]
assert sus[-1]["target_rate"] == sus[-2]["target_rate"], sus[-2:]
assert sus[-1]["concurrency"] > 4 and c["concurrency"] == sus[-1]["concurrency"], c
assert 0.85 * cap <= c["max_sustainable_docs_per_s"] <= cap * 1.03, c
print("answer:", c["max_sustainable_docs_per_s"], "docs/s at concurrency", c["concurrency"])
PY
last=$(tail -n 1 fm.out)
[[ "$last" =~ ^max\ sustainable:\ [0-9]+\ docs/s\ at\ batch\ 100,\ concurrency\ [0-9]+\ \(p99\ [0-9.]+\ ms\)\;\ concurrency\ [0-9]+:\ the\ client\ could\ not\ send\ the\ rate\ with\ fewer\ connections ]] ||
    fail "the last line does not say find-max added connections: $last"
grep -q "requests waited for a connection, the client could not send the target (not the cluster's limit); the same target again with concurrency 8" fm.err ||
    fail "no progress line naming the client's limit"
grep -q "held again in the repeat (steps " fm.err || fail "no line saying the repeat confirmed it"
pass "find-max added connections when the client missed the target, and confirmed the answer: $last"
