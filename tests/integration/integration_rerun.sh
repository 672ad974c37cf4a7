#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_rerun — index.recreate: false (what import-loadgen writes: the index is the
# user's) against the real test cluster: the second and third runs write into an index that
# already holds documents. Each run is verified against the documents it added (the count before
# the cell is subtracted), standalone and from the coordinator. The index was made beforehand
# with 2 shards while the scenario says 1: every row is flagged index-mismatch and says so.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-rerun-$$"
curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true
trap 'curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
curl -sf -X PUT "$ES/$IDX" -H 'Content-Type: application/json' \
    -d '{"settings": {"number_of_shards": 2, "number_of_replicas": 0}}' > /dev/null ||
    fail "could not create $IDX"
cat > s.yaml <<YAML
name: rerun
target: {hosts: ["$ES"]}
index: {name: $IDX, recreate: false}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 10s, duration: 60s}   # scaled down by --warmup / --duration below
matrix: {batch_size: [50], concurrency: [2]}
YAML
row() { # row RESULTS_DIR -> the matrix.json row as JSON on stdout
    python3 -c 'import glob, json, sys; print(json.dumps(json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]))' "$1"
}
timeout 120 "$AGENT" run s.yaml --threads 1 --warmup 1s --duration 2s --results r1 > o1 2> e1 || { cat e1 >&2; fail "first run exit $?"; }
timeout 120 "$AGENT" run s.yaml --threads 1 --warmup 1s --duration 2s --results r2 > o2 2> e2 || { cat e2 >&2; fail "second run (index not empty) exit $?"; }
grep -q "already hold [0-9]* documents" e2 || { cat e2 >&2; fail "the second run did not say the index was not empty"; }
grep -q "already existed with 2 shards" e1 || { cat e1 >&2; fail "no warning that the index has 2 shards"; }
grep -q "index-mismatch" o1 || { cat o1 >&2; fail "the row is not flagged index-mismatch"; }
P=$(free_port)
timeout 120 "$COORD" run s.yaml --local-agents 2 --threads 1 --insecure --warmup 1s --duration 2s --bind "tcp://127.0.0.1:$P" \
    --results r3 -q > o3 2> e3 || { cat e3 >&2; fail "coordinator run exit $?"; }
python3 - "$(row r1)" "$(row r2)" "$(row r3)" "$(curl -sf "$ES/$IDX/_count")" <<'PY' || fail "rows"
import json, sys
rows = [json.loads(a) for a in sys.argv[1:4]]
total = json.loads(sys.argv[4])["count"]
for i, r in enumerate(rows, 1):
    assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] > 0, (i, r)
    assert r["warmup_s"] == 1 and r["duration_s"] == 2, (i, r)  # --warmup / --duration
    assert "already existed with 2 shards and 0 replicas" in r["reason"], (i, r)
    assert "not verified" not in r["reason"], (i, r)
assert total == sum(r["docs_ok_all"] for r in rows), (total, [r["docs_ok_all"] for r in rows])
print("runs added", [r["docs_ok_all"] for r in rows], "documents; the index holds", total)
PY
pass "recreate: false, three runs into one index: each verified against what it added, flagged index-mismatch"
