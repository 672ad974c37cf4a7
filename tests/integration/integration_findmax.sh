#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_findmax — find-max end to end. (1) Against the fault server in capacity
# mode (one write pool for every connection, 2000 docs/s, 429 beyond 1 s of queued work): the
# max sustainable docs/s lands within ±10 % of the configured capacity, every step is a verified
# row of its own, findmax.json holds the path, the last line is the result, and the found rate
# holds when re-run as a plain target-rate cell. --resume replays the finished steps from disk to
# the same result without load. (2) Against the real test cluster, a short find-max completes and
# its sustained step verifies by _count. Short windows (1 s + 3 s steps, 3-4 s sustain): ~2 min.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
CAPACITY=2000
FS=$(free_port)
python3 "$SRC/tests/support/fault_server.py" --port "$FS" --mode capacity --capacity $CAPACITY --queue-ms 1000 \
    --max-lifetime 400 > fs.out 2>&1 &
FSP=$!
trap 'kill $FSP 2>/dev/null; cleanup_tmp' EXIT
for _ in $(seq 50); do grep -q READY fs.out && break; sleep 0.1; done
grep -q READY fs.out || fail "fault server did not start: $(cat fs.out)"

cat > cap.yaml <<YAML
name: cap
target: {hosts: [http://127.0.0.1:$FS]}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 3s}
find_max: {batch_start: 100, sustain: 4s, step_down_pct: 5, max_time: 4m}
YAML
P=$(free_port)
timeout 300 "$COORD" find-max cap.yaml --local-agents 2 --bind "tcp://127.0.0.1:$P" --results res \
    -q > fm.out 2> fm.err || { cat fm.err fm.out >&2; fail "find-max against the fault server exit $?"; }
cat fm.out
last=$(tail -n 1 fm.out)
echo "$last"
[[ "$last" =~ ^max\ sustainable:\ ([0-9]+)\ docs/s\ at\ batch\ ([0-9]+),\ concurrency\ ([0-9]+)\ \(p99\ [0-9.]+\ ms\)(\;\ concurrency\ [0-9]+\ is\ the\ sustain\ headroom:\ the\ search\ found\ ([0-9]+).*)?$ ]] ||
    fail "the last line is not 'max sustainable: N docs/s at batch B, concurrency C (p99 X ms)[; ... headroom ...]': $last"
N=${BASH_REMATCH[1]} B=${BASH_REMATCH[2]} C=${BASH_REMATCH[3]} FOUND=${BASH_REMATCH[5]}
python3 - "$N" $CAPACITY <<'PY' || fail "max sustainable $N docs/s is not within 10 % of the capacity $CAPACITY"
import sys
n, cap = float(sys.argv[1]), float(sys.argv[2])
assert 0.9 * cap <= n <= 1.1 * cap, (n, cap)
PY
DIR=$(ls -d res/cap-*)
python3 - "$DIR" "$N" <<'PY' || fail "findmax.json / matrix.json do not describe the search"
import json, sys
d, n = sys.argv[1], float(sys.argv[2])
fm = json.load(open(d + "/findmax.json"))
rows = {r["cell"]: r for r in json.load(open(d + "/matrix.json"))["rows"]}
(c,) = fm["combinations"]
assert c["found"] and round(c["max_sustainable_docs_per_s"]) == round(n), c
steps = c["steps"]
phases = [s["phase"] for s in steps]
assert phases[0] == "batch" and "concurrency" in phases and phases[-1] == "sustain", phases
# the answer is the rate that held and held again in a repeat of its step
assert [s["verdict"] for s in steps[-2:]] == ["held", "confirmed"], steps[-2:]
assert steps[-1]["target_rate"] == steps[-2]["target_rate"] and c["confirmed"], steps[-2:]
# the batch phase ran with one request in flight and doubled the batch size
b = [s for s in steps if s["phase"] == "batch"]
assert all(s["concurrency"] == 1 for s in b), b
# each new size is twice the one before (an unclear one runs again with its reference between)
sizes = list(dict.fromkeys(s["batch_size"] for s in b))
assert all(y == 2 * x for x, y in zip(sizes, sizes[1:])), sizes
# an unclear size runs again after its reference (the size before it)
assert all(y["verdict"] == "repeat" and 2 * y["batch_size"] == x["batch_size"]
           for x, y in zip(b, b[1:]) if x["verdict"] == "unclear"), b
for s in steps:  # every step is an ordinary, verified row
    r = rows[s["cell"]]
    assert r["verified"] and r["docs_counted"] == r["docs_ok_all"], r
    assert r["batch_size"] == s["batch_size"] and r["concurrency"] == s["concurrency"], (r, s)
print("steps:", len(steps), "knee:", c["knee"])
PY
# the result line says when its concurrency is the sustain headroom; the
# directory leads with the answer; sustain rows are left out of the findings; the steps were
# not repeated, and the output says so
KNEE_C=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["combinations"][0]["knee"]["concurrency"])' "$DIR/findmax.json")
if [ "$KNEE_C" != "$C" ]; then
    [ "$FOUND" = "$KNEE_C" ] || fail "concurrency $C is not the search's $KNEE_C, and the line does not say it is the headroom: $last"
fi
head -n 3 "$DIR/matrix.md" | grep -q '^# find-max: the sustainable answer' || fail "matrix.md does not lead with the answer"
grep -Fq -- "- $last" "$DIR/matrix.md" || fail "matrix.md's lead is not the result line"
grep -Eq '^(Not repeated: each step ran once|Each step ran once \(not repeated\))' fm.out || fail "find-max does not say its steps were not repeated"
python3 - "$DIR" <<'PY' || fail "the findings compare sustain steps with search steps"
import json, sys
m = json.load(open(sys.argv[1] + "/matrix.json"))
items = m["findings"]["items"]
left = [x for x in items if x["kind"] == "left_out"]
assert left, items
text = " ".join(x["text"] for x in items)
sustain = [r["cell"] for r in m["rows"] if "-sustain-" in r["cell"]]
assert sustain
for x in items:
    if x["kind"] in ("best", "knee", "plateau", "batch", "axis"):
        for s in sustain:
            assert s not in x["text"], (s, x["text"])
assert "find-max sustain step" in text, text
PY
h=$(cat "$DIR/report.html")
[[ "${h%%id=\"findings\"*}" == *'id="find-max"'* ]] || fail "report.html does not show the find-max answer above the findings"
grep -q "find-max" "$DIR/report.html" || fail "report.html has no find-max section"
# each step's first line names the phase, the step and the time bound left
# (not "cell 3/3 ... left ~3 s"), and plan states the search's bound
grep -Eq 'find-max step 1 \(batch phase: batch 100, concurrency 1\), search bound left ~[0-9].* of find_max.max_time 4m' fm.err ||
    fail "no step line with phase, step and bound: $(grep -m3 'step' fm.err)"
grep -Eq 'find-max step [0-9]+ \(sustain phase: batch [0-9]+, concurrency [0-9]+, target [0-9]+ docs/s\), search bound' fm.err ||
    fail "no sustain step line with its target"
! grep -Eq '^.*cell [0-9]+/[0-9]+ fm1-' fm.err || fail "a find-max step still says 'cell k/n'"
"$COORD" plan cap.yaml > plan.out || fail "plan on a find-max scenario"
grep -Eq '^find-max: 1 combination of the other axes, each a search of at most [0-9]+ search steps .* bounded by find_max.max_time 4m00s: up to [0-9hms]+ per combination' plan.out ||
    fail "plan does not state find-max's bound: $(grep -i find plan.out)"

# the found rate holds as a plain target-rate cell (what the number promises)
cat > hold.yaml <<YAML
name: hold
target: {hosts: [http://127.0.0.1:$FS]}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 4s, target_rate: $N}
matrix: {batch_size: [$B], concurrency: [$C]}
YAML
P=$(free_port)
timeout 120 "$COORD" run hold.yaml --local-agents 1 --bind "tcp://127.0.0.1:$P" --results res -q \
    > hold.out 2> hold.err || { cat hold.err >&2; fail "the re-run as a target-rate cell failed"; }
python3 - res "$N" <<'PY' || fail "the found rate did not hold as a plain target-rate cell"
import csv, glob, sys
r = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/hold-*/matrix.csv")[0])))[0]
n = float(sys.argv[2])
assert r["verified"] == "true" and int(r["docs_rejected"]) == 0, r
assert float(r["docs_per_s"]) >= 0.97 * n, (r["docs_per_s"], n)
print("re-run: %s docs/s at target %d" % (r["docs_per_s"], n))
PY

# --resume: every step is on disk, so nothing runs again and the result is the same
P=$(free_port)
timeout 120 "$COORD" find-max cap.yaml --local-agents 2 --bind "tcp://127.0.0.1:$P" --resume "$DIR" \
    -q > resume.out 2> resume.err || { rc=$?; cat resume.err >&2; fail "find-max --resume exit $rc"; }
[ "$(tail -n 1 resume.out)" = "$last" ] || fail "resume gave '$(tail -n 1 resume.out)', not '$last'"
grep -q "already finished" resume.err || fail "resume ran the steps again"
! grep -q "cell .* on 1 agents" resume.err || fail "resume started a cell"
pass "fault server capacity $CAPACITY docs/s: find-max found $N docs/s at batch $B, concurrency $C (within 10 %); it held as a target-rate cell; --resume replayed it"

# (2) the real test cluster: a short search, its sustained step verified by _count
cat > real.yaml <<YAML
name: real
target: {hosts: ["$ES"]}
index: {name: bf-findmax-test, settings: {refresh_interval: 1s}}
variables: [{name: n, type: range, from: 1, to: 999}]
document: {source: '{"n": \$[[n]], "msg": "find-max test document"}'}
run: {warmup: 1s, duration: 2s}
# small batches (the docs/s of a 2 s window of a few big requests is coarse) and big steps down:
# on a shared 2-core host the closed-loop peak is noisy (17338 docs/s in one 2 s step, ~4000
# sustained minutes later), the sustain phase steps down to what holds
find_max: {batch_start: 250, batch_max: 1000, concurrency_max: 4, sustain: 3s, step_down_pct: 30,
           sustain_tries: 8, max_time: 3m}
YAML
P=$(free_port)
timeout 300 "$COORD" find-max real.yaml --local-agents 1 --bind "tcp://127.0.0.1:$P" --results res \
    -q > real.out 2> real.err || { rc=$?; cat real.err real.out >&2; fail "find-max on the cluster exit $rc"; }
cat real.out
tail -n 1 real.out | grep -Eq '^max sustainable: [0-9]+ docs/s at batch [0-9]+, concurrency [0-9]+' ||
    fail "no result line: $(tail -n 1 real.out)"
python3 - res <<'PY' || fail "the sustained step on the cluster is not verified by _count"
import glob, json, sys
d = glob.glob(sys.argv[1] + "/real-*")[0]
fm = json.load(open(d + "/findmax.json"))
rows = {r["cell"]: r for r in json.load(open(d + "/matrix.json"))["rows"]}
(c,) = fm["combinations"]
held = [s for s in c["steps"] if s["verdict"] in ("held", "confirmed")]
assert c["found"] and held, c
r = rows[held[-1]["cell"]]
assert r["verified"] and r["docs_counted"] == r["docs_ok_all"] > 0, r
assert r["docs_rejected"] == 0 and r["docs_failed"] == 0, r
assert r["store_bytes_per_payload_byte"] and r["store_bytes_per_payload_byte"] > 0, r
print("cluster: held step", held[-1]["cell"], "with", r["docs_counted"], "documents counted")
PY
# find-max deletes the index its last step left, and says so
grep -q "find-max: deleted bf-findmax-test, the index of the last step" real.err ||
    fail "find-max did not say it deleted its last index: $(grep -i 'index' real.err | tail -3)"
code=$(curl -s -o /dev/null -w '%{http_code}' "$ES/bf-findmax-test")
[ "$code" = 404 ] || fail "find-max left its last index bf-findmax-test behind (HTTP $code)"
pass "real cluster: $(tail -n 1 real.out); the held step verified by _count"

# size takes the raw-to-disk factor and the ingest per data node from these results
RD=$(ls -d res/real-*)
"$COORD" size --daily-gb 100 --days 30 --ram-gb 64 --results "$RD" --find-max "$RD" \
    --peak-docs-s 100000 > size.out || { cat size.out >&2; fail "size from the find-max results"; }
cat size.out
grep -Eq '^raw-to-disk factor [0-9.]+: median store_bytes_per_payload_byte of [0-9]+ rows' size.out ||
    fail "size did not take the raw-to-disk factor from $RD"
grep -Eq '^ingest per data node [0-9]+ docs/s: max sustainable [0-9]+ docs/s on 1 data node' size.out ||
    fail "size did not take the ingest per data node from $RD/findmax.json"
grep -Eq '^data nodes: [0-9]+ \((storage|ingest|storage and ingest alike) decides' size.out ||
    fail "size did not say which of storage and ingest decides"
# the replicas find-max measured at are read, and the ingest load is scaled by
# the copies the sized cluster writes (1-node dev cluster: one copy per document measured)
MR=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["combinations"][0]["replicas"])' "$RD/findmax.json")
grep -Eq "^ingest per data node [0-9]+ docs/s: .* at replicas $MR in " size.out ||
    fail "size did not say the replicas ($MR) find-max measured at"
grep -Fq "copies factor         = (1 + 1) copies sized / 1 copy per document measured (replicas $MR on 1 data node) = 2.00" size.out ||
    fail "size did not scale by the copies factor 2 (1 replica sized, 1 copy measured)"
grep -Eq '^ingest nodes .* x 2\.00 copies factor / ' size.out || fail "the formula line lacks the factor"
rc=0
"$COORD" size --daily-gb 100 --days 30 --ram-gb 64 --find-max "$RD" --peak-docs-s 100000 \
    --measured-replicas $((MR + 1)) > size2.out 2> size2.err || rc=$?
[ "$rc" -eq 2 ] || fail "size with a --measured-replicas that contradicts $RD: exit $rc, not 2"
grep -q "drop --measured-replicas" size2.err || fail "the refusal does not say what to change: $(cat size2.err)"
pass "size: raw-to-disk factor and ingest per node taken from the find-max results"
