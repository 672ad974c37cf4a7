#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_ownership — index.recreate deletes only what bulkfleet created, against the real
# test cluster. A hand-made index with documents survives a coordinator run and a standalone
# run that name it (exit 3 before any load, naming the index and --replace-existing); a shipped
# template that would replace someone's template, or whose pattern matches someone's index or
# is "*", is refused the same way; with --replace-existing NAME the index is replaced and
# marked (_meta.created_by: bulkfleet), and a later run without the flag may recreate it. A kept
# index (recreate: false) with more replicas than the cluster's nodes can hold runs at once,
# flagged yellow, with its real replica count and what to do; a mapping type from a module the
# cluster lacks (percolator: the percolator module; the dev cluster has mapper-extras)
# is refused naming the module.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-own-$$"
TPL="bf-own-tpl-$$"
cleanup() {
    curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true
    curl -sf -X DELETE "$ES/_index_template/$TPL" > /dev/null 2>&1 || true
    curl -sf -X DELETE "$ES/$IDX-kept" "$ES/$IDX-module" > /dev/null 2>&1 || true
    cleanup_tmp
}
trap cleanup EXIT
json='Content-Type: application/json'
curl -sf -X PUT "$ES/$IDX" -H "$json" -d '{"settings": {"number_of_shards": 1, "number_of_replicas": 0}}' > /dev/null || fail "create $IDX"
for i in 1 2 3; do
    curl -sf -X PUT "$ES/$IDX/_doc/keep-$i?refresh=true" -H "$json" -d "{\"keep\": $i}" > /dev/null || fail "doc $i"
done
count() { curl -sf "$ES/$IDX/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])'; }
scenario() { # scenario FILE [template-yaml-line]
    cat > "$1" <<YAML
name: ownership
target: {hosts: ["$ES"]}
index: {name: $IDX, recreate: true$2}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 0s, duration: 1s}
matrix: {batch_size: [20], concurrency: [1]}
YAML
}
scenario s.yaml ""
P=$(free_port)
rc=0; timeout 60 "$COORD" run s.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --results r -q > o1 2> e1 || rc=$?
[ "$rc" = 3 ] || { cat e1 >&2; fail "coordinator: exit $rc, expected 3 (index not made by bulkfleet)"; }
grep -q "index $IDX .*was not created by bulkfleet" e1 || { cat e1 >&2; fail "coordinator: the message does not name the index"; }
grep -q -- "--replace-existing $IDX" e1 || { cat e1 >&2; fail "coordinator: the message does not say --replace-existing"; }
grep -q "recreate: false" e1 || { cat e1 >&2; fail "coordinator: the message does not say recreate: false"; }
[ "$(count)" = 3 ] || fail "the hand-made index lost documents: $(count)"
[ ! -d r ] || [ -z "$(ls r)" ] || fail "a results directory was made for a refused campaign"
rc=0; timeout 60 "$AGENT" run s.yaml --threads 1 --replace-existing "$IDX-typo" > o2 2> e2 || rc=$?
[ "$rc" = 3 ] || { cat e2 >&2; fail "standalone: exit $rc, expected 3"; }
# a --replace-existing name no cell writes replaces nothing, and says so
grep -q -- "--replace-existing $IDX-typo: no cell of this run writes an index, data stream or index template of that name, so it replaces nothing; names are exact (the first cell's index is $IDX" e2 ||
    { cat e2 >&2; fail "standalone: no warning for a --replace-existing name that matches nothing"; }
grep -q -- "--replace-existing $IDX" e2 || { cat e2 >&2; fail "standalone: no --replace-existing in the message"; }
[ "$(count)" = 3 ] || fail "standalone: the hand-made index lost documents: $(count)"

# templates: someone's template of the same name; a pattern matching someone's index; "*"
curl -sf -X PUT "$ES/_index_template/$TPL" -H "$json" -d "{\"index_patterns\": [\"$TPL-x-*\"], \"priority\": 1}" > /dev/null || fail "create $TPL"
scenario t1.yaml ", template: {name: $TPL, body: {index_patterns: [\"$TPL-y-*\"], priority: 1}}"
rc=0; timeout 60 "$AGENT" run t1.yaml --threads 1 --replace-existing "$IDX" > o3 2> e3 || rc=$?
[ "$rc" = 3 ] && grep -q "index template $TPL .*was not created by bulkfleet" e3 || { cat e3 >&2; fail "someone's template: exit $rc"; }
[ "$(count)" = 3 ] || fail "template refusal: the index lost documents"
curl -sf -X DELETE "$ES/_index_template/$TPL" > /dev/null
scenario t2.yaml ", template: {name: $TPL, body: {index_patterns: [\"bf-own-$$*\"], priority: 1}}"
rc=0; timeout 60 "$AGENT" run t2.yaml --threads 1 > o4 2> e4 || rc=$?
[ "$rc" = 3 ] && grep -q "matches index $IDX" e4 || { cat e4 >&2; fail "pattern over someone's index: exit $rc"; }
scenario t3.yaml ", template: {name: $TPL, body: {index_patterns: [\"*\"], priority: 1}}"
rc=0; timeout 60 "$AGENT" run t3.yaml --threads 1 --replace-existing "$IDX" > o5 2> e5 || rc=$?
[ "$rc" = 3 ] && grep -q 'index_patterns "\*" matches every index' e5 || { cat e5 >&2; fail "pattern *: exit $rc"; }
curl -sf "$ES/_index_template/$TPL" > /dev/null 2>&1 && fail "a refused template was created"
"$COORD" validate t3.yaml > /dev/null 2> e6 || true
grep -q 'looks like it covers production indices' e6 || { cat e6 >&2; fail "validate does not warn about pattern *"; }
[ "$(count)" = 3 ] || fail "template refusals: the index lost documents"

# --replace-existing: replaced, marked; then ours without the flag
timeout 60 "$AGENT" run s.yaml --threads 1 --replace-existing "$IDX" --results r2 > o7 2> e7 || { cat e7 >&2; fail "--replace-existing: exit $?"; }
curl -sf "$ES/$IDX/_doc/keep-1" > /dev/null 2>&1 && fail "--replace-existing: the old index is still there"
# said before it was deleted, with what it held (it went without a word)
grep -q "cell i1-s1-r0-b20-c1: deleting index $IDX on .* (3 documents), which bulkfleet did not create: --replace-existing $IDX" e7 ||
    { cat e7 >&2; fail "--replace-existing: the deletion of someone's index is not logged"; }
grep -q -- "--replace-existing $IDX: no cell" e7 && fail "--replace-existing: a matching name warned as unused"
curl -sf "$ES/$IDX/_mapping" | python3 -c '
import json, sys
m = list(json.load(sys.stdin).values())[0]["mappings"]["_meta"]
assert m["created_by"] == "bulkfleet" and m["scenario"] == "ownership" and m["campaign"].startswith("ownership-"), m
' || fail "the recreated index is not marked"
timeout 60 "$AGENT" run s.yaml --threads 1 > o8 2> e8 || { cat e8 >&2; fail "second run into a bulkfleet index: exit $?"; }
grep -q "deleting index" e8 && { cat e8 >&2; fail "bulkfleet's own index said as someone's"; }
# someone's template replaced with --replace-existing: said
curl -sf -X PUT "$ES/_index_template/$TPL" -H "$json" -d "{\"index_patterns\": [\"$TPL-x-*\"], \"priority\": 1}" > /dev/null || fail "create $TPL again"
timeout 60 "$AGENT" run t1.yaml --threads 1 --replace-existing "$TPL" > o9 2> e9 || { cat e9 >&2; fail "--replace-existing TEMPLATE: exit $?"; }
grep -q "replacing index template $TPL on .*, which bulkfleet did not create: --replace-existing $TPL" e9 ||
    { cat e9 >&2; fail "--replace-existing: replacing someone's template is not logged"; }
# a kept index with more replicas than the cluster can hold (on one node, a
# 1-replica index with recreate: false was waited on for 2 minutes a cell, then reported as
# "replicas 0 cannot be allocated"): decided at once from the node count, with its real count
KEPT="$IDX-kept"
curl -sf -X PUT "$ES/$KEPT" -H "$json" -d '{"settings": {"number_of_shards": 1, "number_of_replicas": 1}}' > /dev/null || fail "create $KEPT"
sed -e "s/name: $IDX, recreate: true/name: $KEPT, recreate: false/" s.yaml > kept.yaml
nodes=$(curl -sf "$ES/_cat/nodes?h=name" | wc -l)
[ "$nodes" = 1 ] || fail "this case needs the 1-node test cluster, $ES has $nodes nodes"
t0=$(date +%s)
rc=0; timeout 100 "$COORD" run kept.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --results rk > o10 2> e10 || rc=$?
took=$(( $(date +%s) - t0 ))
[ "$rc" = 0 ] || { cat e10 >&2; fail "kept 1-replica index: exit $rc after $took s (the old wait was 120 s a cell)"; }
grep -q "index $KEPT already exists with 1 replicas (index.recreate is false, so it is kept, and the cell's replicas 0 do not apply to it): each shard's 2 copies need 2 data nodes, the cluster has 1" e10 ||
    { cat e10 >&2; fail "kept index: the real replica count and the node count are not said"; }
grep -q "PUT /$KEPT/_settings {\"index\": {\"number_of_replicas\": 0}}" e10 || { cat e10 >&2; fail "kept index: what to do is not said"; }
grep -q "cannot be allocated\|stay yellow after" e10 && { cat e10 >&2; fail "kept index: waited for green before deciding"; }
# the wait for green would take the whole 120 s bound: a 1-second cell ends well before
[ "$took" -lt 60 ] || { cat e10 >&2; fail "kept index: the run took $took s, it waited for green"; }
python3 - rk <<'PY' || fail "kept index: the row is not flagged yellow / index-mismatch"
import csv, glob, sys
row = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/*/matrix.csv")[0])))[0]
assert row["yellow"] == "true" and row["index_mismatch"] == "true", row
PY
curl -sf -X DELETE "$ES/$KEPT" > /dev/null || true
# a mapping type the dev cluster lacks (percolator): the error names the module
cat > module.yaml <<YAML
name: module
target: {hosts: ["$ES"]}
index: {name: $IDX-module, mappings: {properties: {price: {type: percolator}}}}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"price": \$[[n]]}'}
run: {warmup: 0s, duration: 1s}
matrix: {batch_size: [20], concurrency: [1]}
YAML
if curl -sf "$ES/_cat/plugins?h=component" | grep -q percolator || curl -sf "$ES/_nodes/plugins" | grep -q '"percolator"'; then
    echo "the test cluster has percolator: the missing-module message is not checked here"
else
    rc=0; timeout 60 "$AGENT" run module.yaml --threads 1 > o11 2> e11 || rc=$?
    [ "$rc" != 0 ] || { cat e11 >&2; fail "percolator without its module: exit 0"; }
    grep -q "creating index $IDX-module on .*: the mappings use field type percolator, which the cluster lacks: it comes from the module percolator" e11 ||
        { cat e11 >&2; fail "percolator without its module: the module is not named"; }
fi
pass "someone's index and templates refused before any load (exit 3, kept); --replace-existing replaces and marks, saying what it deletes (name, documents) and warning about a name that matches nothing; a kept 1-replica index on one node runs at once, flagged yellow, its real replica count said"
