#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_metrics_store_down — the metrics store stops in the middle of a campaign (issue
# #18 item 1). The store is tests/support/fault_server.py answering _bulk like a cluster (a
# store that dies on cue is what a cluster cannot be made to do here cheaply); it is killed as
# soon as the first of 3 cells is written. The campaign goes on and ends 0 with every row in the
# results directory (verified by _count on the real dev cluster), the end says how many
# documents were dropped, matrix.json's metrics_store has indexed + dropped = every document it
# was given (at least every document the files hold), and the store saw only ids of this campaign's first documents, each once.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-msdown-$$"
FSP=
trap '[ -z "$FSP" ] || kill $FSP 2> /dev/null || true; curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
FS=$(free_port)
python3 "$SRC/tests/support/fault_server.py" --port "$FS" --mode ok --log fs.log --max-lifetime 300 > fs.out 2>&1 &
FSP=$!
for _ in $(seq 50); do grep -q READY fs.out && break; sleep 0.1; done
grep -q READY fs.out || fail "fault server did not start: $(cat fs.out)"
PORT=$(free_port)
cat > s.yaml <<YAML
name: msdown-$$
target: {hosts: ["$ES"]}
metrics_store: {hosts: ["http://127.0.0.1:$FS"], flush_wait: 2s}
index: {name: $IDX, recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 2s}
matrix: {batch_size: [50], concurrency: [1, 2, 3], shards: [1]}
YAML
timeout 180 "$COORD" run s.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$PORT" \
    --results r -q > out 2> err &
CPID=$!
# kill the store once the first cell is finished and its documents had a moment to go out
for _ in $(seq 600); do
    [ -n "$(ls r/msdown-$$-*/cells/*.ndjson 2> /dev/null)" ] && break
    sleep 0.1
done
sleep 1
kill $FSP
wait $FSP 2> /dev/null || true
FSP=
T0=$(date +%s)
wait $CPID || { cat err >&2; fail "campaign exit $? with the store gone"; }
D=$(ls -d r/msdown-$$-*)
grep -q "metrics store .* dropped" err || { cat err >&2; fail "the end does not report the dropped documents"; }
python3 - "$D" fs.log <<'PY'
import json, subprocess, sys, os
d, log = sys.argv[1:3]
exp = json.loads(subprocess.check_output([sys.executable, os.environ["BF_SOURCE_DIR"] + "/tests/support/ms_expect.py", "expect", d]))
total = sum(exp.values())
m = json.load(open(d + "/matrix.json"))
assert len(m["rows"]) == 3 and all(r["verified"] and not r["failed"] for r in m["rows"]), m["rows"]
assert exp["row"] == 3, exp
ms = m["metrics_store"]
assert ms["dropped"] > 0, ms
# every document given to the writer is either indexed or counted as dropped; there are more
# than the files hold: live seconds are sent again with their final values when a cell ends
assert ms["indexed"] + ms["dropped"] == ms["documents"] >= total, (ms, total)
ids = []
for line in open(log):
    rec = json.loads(line)
    ids += [i for i in rec.get("ids") or [] if i]
camp = os.path.basename(d)
assert ids and all(i.startswith(camp + "/") for i in ids), ids[:3]
assert len(ids) >= ms["indexed"], (len(ids), ms)
print(f"documents {total} ({exp}); store got {len(ids)} ids before it stopped; matrix.json metrics_store {ms}")
PY
pass "store stopped mid-run: 3 verified rows, dropped documents reported and counted"
