#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_elastic_serverless — a target whose GET / says version.build_flavor serverless
# (fault_server.py --elastic-serverless: an Elastic Serverless project, whose _nodes, _cluster,
# _stats and _flush answer 410 and which refuses index settings outside Elastic's Serverless
# list, number_of_shards and number_of_replicas among them). A campaign without and with gzip
# and index.settings refresh_interval (on the list): no request answered 410 or 400, no index
# created with number_of_shards/number_of_replicas, every row verified and saying shards and
# replicas are the project's own, telemetry and the skipped APIs said. matrix.shards,
# index.settings number_of_replicas, an index setting off the list (index.settings and a
# matrix settings.* axis) and routing_mode node are each refused at run (exit 2, naming the
# key and why) before any index is made. The agent's standalone mode adapts the same way.
source "$(dirname "$0")/lib.sh"
trap 'stop_fs; cleanup_tmp' EXIT
cd "$TMP"
start_fs ok ess --elastic-serverless
cat > ess.yaml <<YAML
name: ess
target: {hosts: ["http://127.0.0.1:$FS_PORT"]}
index: {name: "bench-{compression}", recreate: true, settings: {refresh_interval: 5s}}
document: {source: '{"msg": "serverless", "n": \$[[seq]]}'}
variables: [{name: seq, type: sequence}]
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [50], concurrency: [2], compression: [none, gzip]}
YAML
set +e
timeout 300 "$COORD" run ess.yaml --local-agents 1 --threads 1 --insecure \
    --bind "tcp://127.0.0.1:$(free_port)" --results r -q > ess.out 2> ess.err
RC=$?
set -e
[ "$RC" = 0 ] || { cat ess.err >&2; fail "Elastic Serverless campaign: exit $RC"; }
grep -q "telemetry: not measured: Elastic Serverless (build_flavor serverless)" ess.err ||
    { cat ess.err >&2; fail "telemetry not said to be unmeasured"; }
grep -q "target: Elastic Serverless (build_flavor serverless): indices are created without number_of_shards" ess.err ||
    { cat ess.err >&2; fail "what is left out and skipped is not said"; }
python3 - "$FS_LOG" r <<'PY'
import csv, glob, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in recs if r.get("status") in (400, 410) and not r.get("bulk")]
assert not bad, "refused by the project: %s" % bad[:3]
puts = [r for r in recs if r["method"] == "PUT" and r["path"].startswith("/bench-")]
assert len(puts) == 2, puts
for r in puts:  # the scenario's refresh_interval sent; no shard or replica count
    ix = r["index_settings"]["index"]
    assert ix.get("refresh_interval") == "5s" and "number_of_shards" not in ix and \
        "number_of_replicas" not in ix, r["index_settings"]
rows = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/*/matrix.csv")[0])))
assert len(rows) == 2, len(rows)
for r in rows:
    assert r["verified"] == "true", r
    assert int(r["docs_counted"]) == int(r["docs_ok_all"]) > 0, r
m = json.load(open(glob.glob(sys.argv[2] + "/*/matrix.json")[0]))
reasons = [json.dumps(row) for row in m["rows"]]
assert all("shards and replicas are the Elastic Serverless project's own" in t
           for t in reasons), reasons[0][:800]
print("%d requests, none refused (410/400), %d indices created, %d rows verified"
      % (len(recs), len(puts), len(rows)))
PY
pass "Elastic Serverless: no non-public API or refused setting sent, every row verified"

# named targets (targets: and the target axis) reach the same project: the same skipping
: > "$FS_LOG"
cat > essmt.yaml <<YAML
name: essmt
target: {hosts: ["http://127.0.0.1:$FS_PORT"]}
targets: {a: {hosts: ["http://127.0.0.1:$FS_PORT"]}, b: {hosts: ["http://localhost:$FS_PORT"]}}
index: {name: "bench-{target}", recreate: true}
document: {source: '{"msg": "serverless", "n": \$[[seq]]}'}
variables: [{name: seq, type: sequence}]
run: {warmup: 0s, duration: 2s}
matrix: {batch_size: [50], concurrency: [2], target: [a, b]}
YAML
set +e
timeout 300 "$COORD" run essmt.yaml --local-agents 1 --threads 1 --insecure \
    --bind "tcp://127.0.0.1:$(free_port)" --results rmt -q > essmt.out 2> essmt.err
RC=$?
set -e
[ "$RC" = 0 ] || { cat essmt.err >&2; fail "Elastic Serverless through named targets: exit $RC"; }
python3 - "$FS_LOG" rmt <<'PY'
import csv, glob, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in recs if r.get("status") in (400, 410) and not r.get("bulk")]
assert not bad, "refused by the project: %s" % bad[:3]
assert sum(1 for r in recs if r["method"] == "GET" and r["path"] == "/") >= 3, "named targets not probed"
puts = [r for r in recs if r["method"] == "PUT" and r["path"].startswith("/bench-")]
assert sorted(r["path"] for r in puts) == ["/bench-a", "/bench-b"], puts
assert all("number_of_shards" not in r["index_settings"]["index"] for r in puts), puts
rows = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/*/matrix.csv")[0])))
assert len(rows) == 2 and all(r["verified"] == "true" for r in rows), rows
PY
pass "named targets: each probed without non-public APIs, both rows verified"

# the agent's standalone mode adapts the same way
: > "$FS_LOG"
set +e
timeout 120 "$AGENT" run ess.yaml --cell 1 --threads 1 --results rs > sa.out 2> sa.err
RC=$?
set -e
[ "$RC" = 0 ] || { cat sa.err >&2; fail "standalone against Elastic Serverless: exit $RC"; }
python3 - "$FS_LOG" rs <<'PY'
import csv, glob, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in recs if r.get("status") in (400, 410) and not r.get("bulk")]
assert not bad, "refused by the project: %s" % bad[:3]
puts = [r for r in recs if r["method"] == "PUT" and r["path"].startswith("/bench-")]
assert puts and all("number_of_shards" not in r["index_settings"]["index"] for r in puts), puts
rows = list(csv.DictReader(open(glob.glob(sys.argv[2] + "/*/matrix.csv")[0])))
assert len(rows) == 1 and rows[0]["verified"] == "true", rows
PY
pass "standalone: the same, row verified"

# refused at run, before any index is made: exit 2, the key and why
refused() { # NAME SED-EXPR EXPECTED-MESSAGE
    sed "$2" ess.yaml > "$1.yaml"
    : > "$FS_LOG"
    set +e
    timeout 120 "$COORD" run "$1.yaml" --local-agents 1 --threads 1 --insecure \
        --bind "tcp://127.0.0.1:$(free_port)" --results "r-$1" -q > "$1.out" 2>&1
    local rc=$?
    set -e
    [ "$rc" = 2 ] || { cat "$1.out" >&2; fail "$1: exit $rc, want 2"; }
    grep -qF -- "$3" "$1.out" || { cat "$1.out" >&2; fail "$1: message (want: $3)"; }
    if grep -q '"method": "PUT"' "$FS_LOG"; then fail "$1: an index was made before the refusal"; fi
}
refused shards 's/matrix: {batch_size/matrix: {shards: [1, 2], batch_size/' \
    "matrix.shards (the rows then say that shards and replicas are the project's own"
grep -q "Elastic Serverless (GET / said build_flavor serverless) places shards and replicas itself" shards.out ||
    fail "matrix.shards: why"
refused replicas 's/settings: {refresh_interval: 5s}/settings: {refresh_interval: 5s, number_of_replicas: 1}/' \
    "remove index.settings (the rows"
refused merge 's/settings: {refresh_interval: 5s}/settings: {refresh_interval: 5s, merge.scheduler.max_thread_count: 1}/' \
    "index.settings.merge.scheduler.max_thread_count (cell"
grep -q "does not accept the index setting index.merge.scheduler.max_thread_count; a project accepts only: codec, default_pipeline" merge.out ||
    fail "index setting: why"
refused translog 's/matrix: {batch_size/matrix: {settings.translog.durability: [async, request], batch_size/' \
    "matrix.settings.translog.durability (cell"
refused route 's/matrix: {batch_size/matrix: {routing_mode: [none, node], batch_size/' \
    "request.routing_mode node (cell"
pass "run refuses matrix.shards, number_of_replicas, two settings off the list and routing_mode node (exit 2, no index made)"
