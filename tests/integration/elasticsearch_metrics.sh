#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_metrics — the metrics store in the real 3-node Elasticsearch 8.17.0 (the
# "devcluster_es8" fixture): a 1-cell campaign writes its merged seconds, agent
# seconds, telemetry node samples, row and matrix row into it (--metrics-store, the store being
# the target, allowed) each exactly once (ms_expect: every kind's _count equals the results
# files'), with @timestamp a date and the axes keywords (bulkfleet's index templates, composable,
# as on OpenSearch); `publish` of the same directory leaves every count unchanged, `publish` of
# an older results directory (the shard-study-base fixture, 12 cells with telemetry) writes
# every document once, and every visualization of deploy/dashboards runs as an aggregation
# over it with values.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-es-mstore-$$"
trap 'curl -s -X DELETE "$ES/$IDX?ignore_unavailable=true" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cat > s.yaml <<YAML
name: es-mstore-$$
target: {hosts: ["$ES"]}
index: {name: $IDX, recreate: true}
variables: [{name: n, type: range, from: 1, to: 9}]
document: {source: '{"n": \$[[n]]}'}
run: {warmup: 1s, duration: 2s}
matrix: {batch_size: [50], concurrency: [1], shards: [1]}
YAML
P=$(free_port)
timeout 180 "$COORD" run s.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --metrics-store "$ES" --metrics-store-allow-target --results r -q > out 2> err || rc=$?
# exit 1 is a row that is not clean (a loaded machine); what the store holds is checked below
[ "${rc:-0}" -le 1 ] || { tail -20 err >&2; fail "campaign with the metrics store: exit $rc"; }
grep -q "metrics store .*: [0-9]* documents indexed, 0 dropped" err || { cat err >&2; fail "no store summary"; }
D=$(ls -d r/es-mstore-$$-*)
python3 "$SRC/tests/support/ms_expect.py" check "$D" "$ES" > c1 || { cat c1 >&2; fail "store counts differ from the results files"; }
python3 - c1 "$ES" <<'PY' || fail "store contents"
import json, sys, urllib.request
c = json.load(open(sys.argv[1]))
exp = c["expect"]
assert exp["row"] == 1 and exp["second"] >= 2 and exp["agent_second"] >= 2 and exp["node"] >= 2, exp
m = json.load(urllib.request.urlopen(sys.argv[2] + "/bulkfleet-samples-*/_mapping", timeout=10))
props = next(iter(m.values()))["mappings"]["properties"]
assert props["@timestamp"]["type"] == "date", props["@timestamp"]
assert props["cell"]["type"] == "keyword", props["cell"]
print("Elasticsearch 8.17.0 as the metrics store:", c["store"])
PY
"$COORD" publish "$D" --metrics-store "$ES" > p1 2> e1 || { cat p1 e1 >&2; fail "publish of the campaign: exit 1"; }
python3 "$SRC/tests/support/ms_expect.py" check "$D" "$ES" > c2 || { cat c2 >&2; fail "publish changed the counts"; }
cmp -s <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["store"])' c1) \
       <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["store"])' c2) || fail "publishing again changed the counts"
S="study-es-$$-20261201T000000Z"
cp -r "$SRC/tests/fixtures/results/shard-study-base" "$S"
"$COORD" publish "$S" --metrics-store "$ES" > p2 2> e2 || { cat p2 e2 >&2; fail "publish shard-study-base: exit 1"; }
grep -q "0 dropped" p2 || { cat p2 e2 >&2; fail "publish dropped documents"; }
python3 "$SRC/tests/support/ms_expect.py" check "$S" "$ES" > c3 || { cat c3 >&2; fail "publish shard-study-base: counts"; }
"$COORD" publish --print-templates > tpl
python3 "$SRC/tests/support/check_dashboards.py" "$SRC/deploy/dashboards/bulkfleet.ndjson" tpl --es "$ES" --campaign "$S" ||
    fail "a dashboard visualization gives no value over the campaign published into Elasticsearch 8"
pass "Elasticsearch 8.17.0 as the metrics store: live campaign and publish, every document once, dashboards' aggregations give values"
