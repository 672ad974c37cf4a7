#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_pipeline — ingest pipelines against the real test cluster: a pipeline the
# scenario ships (index.pipeline) is created before the cell and every bulk request names it
# (/_bulk?pipeline=); a request.pipeline that does not exist fails the cell at prepare, naming
# it, before any document is sent; a pipeline that disappears mid-cell fails every document
# (which proves they went through it) and so fails the cell at once, naming request.pipeline. The dev cluster has no ingest-common processors, so the
# shipped pipeline has an empty processor list.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
P="bfpl$$"
cleanup() {
    curl -s -X DELETE "$ES/$P,$P-missing" > /dev/null 2>&1 || true
    curl -s -X DELETE "$ES/_ingest/pipeline/bulkfleet-$P" > /dev/null 2>&1 || true
    cleanup_tmp
}
trap cleanup EXIT
cat > pl.yaml <<YAML
name: $P
target: {hosts: ["$ES"]}
index:
  name: $P
  settings: {number_of_replicas: 0}
  pipeline: {description: "bulkfleet test", processors: []}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 2s}
matrix: {batch_size: [50], concurrency: [1]}
YAML
row() { python3 -c 'import glob, json, sys; print(json.dumps(json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]))' "$1"; }

# 1. the shipped pipeline is created (named bulkfleet-<name>) and the row verified
timeout 120 "$AGENT" run pl.yaml --cell 1 --threads 1 --results r1 > o1 2> e1 || { cat e1 >&2; fail "run exit $?"; }
curl -sf "$ES/_ingest/pipeline/bulkfleet-$P" | grep -q '"bulkfleet test"' || fail "pipeline bulkfleet-$P was not created"
python3 - "$(row r1)" <<'PY' || fail "row"
import json, sys
r = json.loads(sys.argv[1])
assert r["verified"] is True and r["docs_ok_all"] > 0 and r["docs_failed"] == 0, r
PY

# 2. a request.pipeline that is not there: the cell fails at prepare, naming it, nothing sent
sed -e "s/^  pipeline: .*//" -e "s/^run:/request: {pipeline: nosuch-$P}\nrun:/" -e "s/name: $P\$/name: $P-missing/" pl.yaml > missing.yaml
"$COORD" validate missing.yaml > /dev/null 2>&1 || fail "missing.yaml does not validate"
set +e
t0=$(date +%s)
timeout 120 "$AGENT" run missing.yaml --cell 1 --threads 1 --results r2 > o2 2> e2
rc=$?
t1=$(date +%s)
set -e
[ "$rc" != 0 ] || fail "a missing request.pipeline did not fail the cell"
grep -q "request.pipeline 'nosuch-$P' does not exist" e2 || { cat e2 >&2; fail "the message does not name request.pipeline"; }
[ $((t1 - t0)) -lt 10 ] || fail "the cell took $((t1 - t0)) s to fail (should fail at prepare)"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$ES/$P-missing")" = 404 ] || fail "the index was created although the cell failed at prepare"

# 3. the pipeline deleted during the cell: every document fails, so they were sent through
# it, and the cell fails at once (a pipeline failing every document), naming the key
sed -i "s/run: {warmup: 1s, duration: 2s}/run: {warmup: 1s, duration: 20s}/" pl.yaml
curl -sf -X DELETE "$ES/$P" > /dev/null || fail "could not delete the index of the first run"
t0=$(date +%s)
timeout 120 "$AGENT" run pl.yaml --cell 1 --threads 1 --results r3 > o3 2> e3 &
apid=$!
for _ in $(seq 1 50); do
    [ "$(curl -s "$ES/$P/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("count", 0))' 2>/dev/null || echo 0)" -gt 0 ] && break
    sleep 0.1
done
curl -s "$ES/$P/_refresh" > /dev/null
curl -sf -X DELETE "$ES/_ingest/pipeline/bulkfleet-$P" > /dev/null || fail "could not delete the pipeline"
set +e
wait $apid
rc=$?
set -e
t1=$(date +%s)
[ "$rc" != 0 ] || fail "the cell did not fail when its pipeline failed every document"
[ $((t1 - t0)) -lt 15 ] || fail "the cell took $((t1 - t0)) s of its 21 to fail"
python3 - "$(row r3)" <<'PY' || { cat e3 >&2; fail "documents sent after the pipeline was deleted did not fail"; }
import json, sys
r = json.loads(sys.argv[1])
# over all the cell sent: on a quiet host the pipeline is deleted while the 1 s warmup still
# runs (599 requests in it), and the failure then comes before the window (docs_failed 0)
assert r["docs_failed_all"] > 0 and r["failed"] is True, r
assert "fix request.pipeline" in r["reason"], r
print("after the pipeline was deleted:", r["docs_failed_all"], "documents failed;", r["docs_ok_all"], "acknowledged before")
PY
grep -q "pipeline with id \[bulkfleet-$P\] does not exist" e3 || { cat e3 >&2; fail "the failure does not name the pipeline"; }

# 4. validate: a pipeline body without processors, a templated request.pipeline
sed "s/processors: \[\]/on_failure: []/" pl.yaml > bad1.yaml
sed "s/^run:/request: {pipeline: 'p-\$\$[[n]]'}\nrun:/" pl.yaml | sed 's/\$\$\[\[/$[[/' > bad2.yaml
for f in bad1 bad2; do
    set +e
    "$COORD" validate $f.yaml > $f.out 2>&1
    rc=$?
    set -e
    [ "$rc" = 2 ] || { cat $f.yaml $f.out >&2; fail "$f.yaml: exit $rc, want 2"; }
done
grep -q 'index.pipeline: an ingest pipeline needs "processors"' bad1.out || { cat bad1.out >&2; fail "bad1 message"; }
grep -q "request.pipeline: 'p-\$\[\[n\]\]' is not a pipeline name" bad2.out || { cat bad2.out >&2; fail "bad2 message"; }
pass "ingest pipelines: shipped and created, named on every bulk request, a missing one fails the cell at prepare"
