#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_errtypes — errors by type against the real test cluster: a
# row keeps its failed documents per error type with the first reason of each, in matrix.json,
# matrix.csv and report.html. Cell 1 mixes a mapping conflict (a string that is not a long)
# with version conflicts (create on ids already there); cell 2 indexes into a mapping that
# requires routing without document.routing: routing_missing_exception is other 4xx, not a
# mapping failure, and the cell fails at once naming document.routing.
# Engine-aware: elasticsearch_errtypes runs this script against the real Elasticsearch 8.17.0,
# which names a document that does not fit document_parsing_exception (8.8+; OpenSearch and older
# Elasticsearch: mapper_parsing_exception). Cell 3: every document fails so; the cell stops at
# once with the type, the reason and the mapping hint.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
# the mapping failure's type for this engine, from GET /
MT=$(curl -sf "$ES" | python3 -c '
import json, sys
v = json.load(sys.stdin)["version"]
major, minor = (int(x) for x in v["number"].split(".")[:2])
es = v.get("distribution", "elasticsearch") == "elasticsearch"
print("document_parsing_exception" if es and (major, minor) >= (8, 8) else "mapper_parsing_exception")') ||
    fail "GET / on $ES"
echo "mapping failures on $ES are $MT"
P="bfet$$"
cleanup() {
    curl -s -X DELETE "$ES/$P-mix,$P-route,$P-bad?ignore_unavailable=true" > /dev/null 2>&1 || true
    cleanup_tmp
}
trap cleanup EXIT
cat > mix.yaml <<YAML
name: $P-mix
target: {hosts: ["$ES"]}
index:
  name: $P-mix
  settings: {number_of_replicas: 0}
  mappings: {dynamic: strict, properties: {n: {type: long}}}
variables:
  - {name: id, type: range, from: 1, to: 300}
  - {name: v, type: list, data: [1, 2, 3, x]}
document: {action: create, id: '\$[[id]]', source: '{"n": "\$[[v]]"}'}
run: {warmup: 1s, duration: 2s}
matrix: {batch_size: [100], concurrency: [1]}
YAML
sed -e "s/$P-mix/$P-route/g" \
    -e 's/  mappings: .*/  mappings: {_routing: {required: true}, properties: {n: {type: long}}}/' \
    -e 's/data: \[1, 2, 3, x\]/data: [1, 2]/' -e 's/action: create, //' mix.yaml > route.yaml
sed -e "s/$P-mix/$P-bad/g" -e 's/data: \[1, 2, 3, x\]/data: [x, y]/' -e 's/action: create, //' mix.yaml > bad.yaml
row() { python3 -c 'import glob, json, sys; print(json.dumps(json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]))' "$1"; }

# 1. mapping conflicts and version conflicts, counted by type with their first reasons
set +e
timeout 120 "$AGENT" run mix.yaml --cell 1 --threads 1 --results r1 > o1 2> e1
rc=$?
set -e
[ "$rc" = 1 ] || { cat e1 >&2; fail "a cell with failed documents exited $rc, want 1"; }
python3 - "$(row r1)" "$MT" <<'PY' || { cat e1 >&2; fail "row of the mixed cell"; }
import json, sys
r = json.loads(sys.argv[1])
mt = sys.argv[2]
t = {e["type"]: e for e in r["doc_errors"]}
print("mixed cell:", r["docs_ok_all"], "ok;", {k: v["docs"] for k, v in t.items()})
assert set(t) == {mt, "version_conflict_engine_exception"}, t
m, v = t[mt], t["version_conflict_engine_exception"]
assert m["docs"] > 0 and v["docs"] > 0, t
assert "failed to parse field [n] of type [long]" in m["reason"], m
assert "version conflict" in v["reason"] and "document already exists" in v["reason"], v
# every failed document is under one type: no retries here, so the types add up to the failed
# documents of every second (the window's docs_failed is a part of them)
assert sum(e["docs"] for e in r["doc_errors"]) >= r["docs_failed"] > 0, r
assert r["docs_mapping"] > 0 and r["docs_conflict"] > 0, r
assert r["verified"] is True, r  # the cluster's _count equals the documents acknowledged
PY
csv=$(ls r1/*/matrix.csv)
python3 - "$csv" "$MT" <<'PY' || fail "matrix.csv has no doc_errors column"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = rows[0]["doc_errors"]
assert sys.argv[2] + " " in d and "version_conflict_engine_exception " in d, d
PY
"$COORD" report "$(dirname "$csv")" > rep.out 2>&1 || { cat rep.out >&2; fail "report"; }
grep -q "<td class=\"types\">.*$MT [0-9]*"': <span class="reason">[^<]*failed to parse field \[n\] of type \[long\]' \
    "$(dirname "$csv")/report.html" || fail "report.html does not show the errors by type"

# 2. routing required, none given: other 4xx (not mapping), the cell fails naming the key
set +e
t0=$(date +%s)
timeout 120 "$AGENT" run route.yaml --cell 1 --threads 1 --results r2 > o2 2> e2
rc=$?
t1=$(date +%s)
set -e
[ "$rc" = 1 ] || { cat e2 >&2; fail "routing_missing: exit $rc, want 1"; }
[ $((t1 - t0)) -lt 15 ] || fail "routing_missing: the cell took $((t1 - t0)) s to fail"
grep -q "document.routing" e2 || { cat e2 >&2; fail "routing_missing: the message does not name document.routing"; }
python3 - "$(row r2)" <<'PY' || { cat e2 >&2; fail "row of the routing cell"; }
import json, sys
r = json.loads(sys.argv[1])
t = {e["type"]: e for e in r["doc_errors"]}
print("routing cell:", {k: (v["docs"], v["reason"]) for k, v in t.items()})
assert list(t) == ["routing_missing_exception"], t
assert "routing is required" in t["routing_missing_exception"]["reason"], t
assert t["routing_missing_exception"]["docs"] >= 100, t
assert r["failed"] is True, r
PY
# over every second (the cell may end inside the warmup): other 4xx, never mapping
python3 - r2 <<'PY' || fail "routing_missing_exception counted as a mapping failure"
import glob, json, sys
m = f4 = 0
for line in open(glob.glob(sys.argv[1] + "/*/cells/*.ndjson")[0]):
    o = json.loads(line)
    if o.get("type") == "second":
        m += o["docs_mapping"]
        f4 += o["docs_failed_4xx"]
print("routing cell, every second: docs_mapping", m, "docs_failed_4xx", f4)
assert m == 0 and f4 >= 100, (m, f4)
PY
# 3. every document fails the mapping: the cell stops at once with the engine's type, its
# reason and what to fix
set +e
t0=$(date +%s)
timeout 120 "$AGENT" run bad.yaml --cell 1 --threads 1 --results r3 > o3 2> e3
rc=$?
t1=$(date +%s)
set -e
[ "$rc" = 1 ] || { cat e3 >&2; fail "all documents unmappable: exit $rc, want 1"; }
[ $((t1 - t0)) -lt 15 ] || fail "all documents unmappable: the cell took $((t1 - t0)) s to fail"
grep -q "every document of a bulk request failed with $MT: .*failed to parse field \[n\] of type \[long\].*the documents do not fit the index's mapping; fix document.source or index.mappings" e3 ||
    { cat e3 >&2; fail "all documents unmappable: the message does not name $MT, its reason and the fix"; }
pass "errors by type: mapping and version conflicts with their reasons in matrix.json, matrix.csv and report.html; routing_missing_exception is not a mapping failure; $MT on every document stops the cell with the fix"
