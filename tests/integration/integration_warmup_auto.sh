#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_warmup_auto — run.warmup: auto does not measure a cold start. The fault server in
# capacity mode plays a cluster that indexes 600 docs/s for its first 10 s (a cold JVM), then
# 3000 docs/s. With run.warmup: auto (run.warmup_max 40s) the row's window starts after the cold
# seconds and well before the bound (warmup_s, warmup_max_s), its docs/s is the warm rate, the
# agents ended the load run.duration after the window's start instead of at 40 s + duration
# (the samples stop well before), and ending the load early is not an abort: the row verifies
# with no unknown documents. About 35 s.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
FS=$(free_port)
python3 "$SRC/tests/support/fault_server.py" --port "$FS" --mode capacity --capacity 3000 \
    --queue-ms 3000 --cold-s 10 --cold-capacity 600 --max-lifetime 200 > fs.out 2>&1 &
FSP=$!
trap 'kill $FSP 2>/dev/null; cleanup_tmp' EXIT
for _ in $(seq 50); do grep -q READY fs.out && break; sleep 0.1; done
grep -q READY fs.out || fail "fault server did not start: $(cat fs.out)"

cat > warm.yaml <<YAML
name: warm
target: {hosts: [http://127.0.0.1:$FS]}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: auto, warmup_max: 40s, duration: 5s}
matrix: {batch_size: 200, concurrency: 2}
YAML
"$COORD" plan warm.yaml > plan.out 2>&1 || { cat plan.out >&2; fail "plan refused run.warmup: auto"; }
grep -q "at most 40.0s warmup" plan.out || fail "plan does not count the worst case (run.warmup_max 40s): $(cat plan.out)"
P=$(free_port)
timeout 150 "$COORD" run warm.yaml --local-agents 1 --bind "tcp://127.0.0.1:$P" --results res \
    > run.out 2> run.err || { cat run.err run.out >&2; fail "the campaign exited $?"; }
grep -E "steady after [0-9]+ s of warmup" run.err || fail "no line says when the warmup was steady: $(cat run.err)"
DIR=$(ls -d res/warm-*)
python3 - "$DIR" <<'PY' || fail "the cold start was measured, or the load was not ended early"
import glob, json, sys
d = sys.argv[1]
(row,) = json.load(open(d + "/matrix.json"))["rows"]
print("warmup_s", row["warmup_s"], "warmup_max_s", row["warmup_max_s"], "docs/s",
      row["docs_per_s"], "verified", row["verified"], "unknown", row["docs_unknown_all"])
assert row["warmup_max_s"] == 40, row["warmup_max_s"]
assert 10 <= row["warmup_s"] < 35, row["warmup_s"]  # after the cold seconds, before the bound
assert 2700 <= row["docs_per_s"] <= 3300, row["docs_per_s"]  # the warm rate, not a mix
assert row["verified"] and row["docs_unknown_all"] == 0, row
# the per-second samples: the cold seconds were there, and the load ended at warmup + duration
secs = {}
for f in glob.glob(d + "/cells/*.ndjson"):
    for line in open(f):
        o = json.loads(line)
        if o.get("type") == "second":
            secs[o["second"]] = secs.get(o["second"], 0) + o.get("docs_ok", 0)
cold = [secs[s] for s in range(1, 9) if s in secs]
assert cold and max(cold) < 1000, cold
last = max(secs)
assert last <= row["warmup_s"] + row["duration_s"] + 2, (last, row["warmup_s"])
print("cold seconds", cold, "last second", last)
PY
echo "integration_warmup_auto: ok"
