#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_import_vectors — import-rally of vector tracks (docs/import.md, docs/vectors.md):
# tests/fixtures/rally-random-vector (written as elastic/rally-tracks' random_vector is: a bulk
# task whose documents come from the track's RandomBulkParamSource, into a data stream from a
# composable template, and knn searches from its knn-param-source) and
# tests/fixtures/osb-vectorsearch (as opensearch-benchmark-workloads' vectorsearch: a
# bulk-vector-data-set task over a big-ann .fbin written by Python, force-merge, vector-search
# over a query set; and its random-vector procedure). Each imports with exit 0 and every task
# accounted for (the count line on stderr), and the scenario it writes validates: the vector
# variables with the track's dims or the data set file, the weighted partitions, the knn
# bodies, the after-load force merge, OpenSearch k-NN's index.knn beside index.knn.algo_param.*.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
cp -r "$BF_SOURCE_DIR/tests/fixtures/rally-random-vector" rv
cp -r "$BF_SOURCE_DIR/tests/fixtures/osb-vectorsearch" vs

# ---- Rally's random_vector --------------------------------------------------------------------
"$COORD" import-rally rv -o rv.yaml 2> rv.err || { cat rv.err >&2; fail "random_vector: import exit $?"; }
grep -q "index-and-search: 8 tasks: 1 bulk, 2 searches imported, 5 mapped to what each cell does; none left out" rv.err ||
    { cat rv.err >&2; fail "random_vector: not every task accounted for"; }
grep -q "wrote rv.yaml; check it with" rv.err || { cat rv.err >&2; fail "random_vector: the scenario did not validate"; }
"$COORD" validate rv.yaml > rv.val 2>&1 || { cat rv.val rv.yaml >&2; fail "random_vector: validate"; }
python3 - rv.yaml <<'PY' || fail "random_vector: the scenario is not the track's"
import json, sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
v = {x["name"]: x for x in s["variables"]}
assert v["emb"] == {"name": "emb", "type": "vector", "dims": 32}, v["emb"]
assert v["query_vec"]["dims"] == 32, v["query_vec"]
# track.py's weighted pick: a partition of a tier as likely as its tier's size midpoint
p = v["partition_id"]["data"]
assert [p.count(f"small-{i}") for i in range(3)] == [1, 1, 1], p
assert [p.count(f"medium-{i}") for i in range(2)] == [10, 10], p
assert p.count("large-0") == 100 and len(p) == 123, len(p)
assert v["partition_small"]["data"] == ["small-0", "small-1", "small-2"], v["partition_small"]
d = s["document"]
assert d["action"] == "create" and "id" not in d, d
assert d["source"] == '{"@timestamp":$[[ts]],"partition_id":$[[partition_id]],"emb":$[[emb]]}', d
ix = s["index"]
assert ix["name"] == "vec-bench-random" and ix["template"]["name"] == "vec-template", ix
t = ix["template"]["body"]
assert t["data_stream"] == {} and "number_of_shards" not in json.dumps(t), t
assert t["template"]["mappings"]["properties"]["emb"]["dims"] == 32, t
q = {x["name"]: x for x in s["search"]["queries"]}
b = q["small-partition-search"]["body"]
assert '"filter":{"term":{"partition_id":$[[partition_small]]}}' in b and '"query_vector":$[[query_vec]]' in b, b
assert s["matrix"]["batch_size"] == [200] and s["matrix"]["concurrency"] == [2], s["matrix"]
PY
# paragraphs and routing from the track's parameters
"$COORD" import-rally rv --track-params 'paragraph_size:3,custom_routing:true,dims:16' -o rp.yaml 2> rp.err ||
    { cat rp.err >&2; fail "random_vector with parameters: import exit $?"; }
grep -q '^  routing: "\$\[\[partition_id\]\]"' rp.yaml &&
    grep -qF '\"nested\":[{\"emb\":$[[emb_0]],\"paragraph_id\":0},{\"emb\":$[[emb_1]]' rp.yaml &&
    grep -q '{name: emb_2, type: vector, dims: 16}' rp.yaml || { cat rp.yaml >&2; fail "paragraph_size / custom_routing not imported"; }
"$COORD" validate rp.yaml > /dev/null 2>&1 || fail "random_vector with parameters: validate"
# a dims no vector has: refused, naming it
"$COORD" import-rally rv --track-params dims:0 > /dev/null 2> rz.err && fail "dims 0 accepted"
grep -q "bulk task 'vec-bulk': \"dims\" is 0; a vector has 1..16384 dimensions" rz.err || { cat rz.err >&2; fail "dims 0 message"; }

# ---- OpenSearch Benchmark's vectorsearch ------------------------------------------------------
python3 - <<'PY'
import random, struct
rnd = random.Random(39)
for name, rows in (("vs/base.fbin", 500), ("vs/query.fbin", 20)):
    with open(name, "wb") as f:
        f.write(struct.pack("<II", rows, 16))
        for _ in range(rows):
            f.write(struct.pack("<16f", *(rnd.uniform(-1, 1) for _ in range(16))))
PY
"$COORD" import-rally vs --workload-params vs/params/bigann.json -o vs.yaml 2> vs.err || { cat vs.err >&2; fail "vectorsearch: import exit $?"; }
grep -q "no-train-test: 9 tasks: 1 bulk, 1 search imported, 6 mapped to what each cell does; 1 not imported: warmup-indices (warmup-knn-indices)" vs.err ||
    { cat vs.err >&2; fail "vectorsearch: not every task accounted for"; }
grep -q "wrote vs.yaml; check it with" vs.err || { cat vs.err >&2; fail "vectorsearch: the scenario did not validate"; }
"$COORD" validate vs.yaml > vs.val 2>&1 || { cat vs.val vs.yaml >&2; fail "vectorsearch: validate"; }
python3 - vs.yaml "$TMP/vs" <<'PY' || fail "vectorsearch: the scenario is not the workload's"
import sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
d = sys.argv[2]
v = {x["name"]: x for x in s["variables"]}
assert v["vec"] == {"name": "vec", "type": "vector", "file": d + "/base.fbin"}, v["vec"]
assert v["query_vec"]["file"] == d + "/query.fbin" and v["row"]["type"] == "sequence", v
assert s["document"] == {"action": "index", "id": "$[[row]]", "source": '{"target_field":$[[vec]]}'}, s["document"]
assert s["index"]["force_merge"] == 1 and s["index"]["settings"] == {"index.knn": True}, s["index"]
assert s["index"]["mappings"]["properties"]["target_field"]["dimension"] == 16
(q,) = s["search"]["queries"]
assert q["body"] == ('{"_source":false,"docvalue_fields":["_id"],"query":{"knn":{"target_field":'
                     '{"k":10,"vector":$[[query_vec]]}}},"size":10,"stored_fields":"_none_"}'), q["body"]
m = s["matrix"]
assert m["shards"] == [2] and m["batch_size"] == [100] and m["concurrency"] == [3], m
assert m["include"][0]["search_clients"] == 2, m
PY
# the random-vector procedure: the workload's param-sources as vector variables; index.knn and
# index.knn.algo_param.ef_search in one body (a value and a group of settings)
"$COORD" import-rally vs --workload-params vs/params/random.json --test-procedure random-vector-index-merge-search \
    -o vr.yaml 2> vr.err || { cat vr.err >&2; fail "vectorsearch random: import exit $?"; }
grep -q "random-vector-index-merge-search: 9 tasks: 1 bulk, 1 search imported, 7 mapped to what each cell does; none left out" vr.err ||
    { cat vr.err >&2; fail "vectorsearch random: not every task accounted for"; }
grep -q '{name: vec, type: vector, dims: 24}' vr.yaml && grep -q '{name: partition_id, type: range, from: 0, to: 1000}' vr.yaml &&
    grep -q '^  action: create' vr.yaml && grep -q '"index.knn.algo_param.ef_search":64' vr.yaml ||
    { cat vr.yaml >&2; fail "vectorsearch random: not the workload's param-sources"; }
"$COORD" validate vr.yaml > vr.val 2>&1 || { cat vr.val >&2; fail "vectorsearch random: validate"; }
# a data set file missing: named with what validate needs, the import still exits 0
rm vs/base.fbin
"$COORD" import-rally vs --workload-params vs/params/bigann.json -o vm.yaml 2> vm.err || { cat vm.err >&2; fail "missing data set: exit $?"; }
grep -q "data set not there yet: $TMP/vs/base.fbin" vm.yaml || { cat vm.yaml >&2; fail "missing data set not noted"; }
pass "random_vector and vectorsearch imported, every task accounted for, the scenarios validate"
