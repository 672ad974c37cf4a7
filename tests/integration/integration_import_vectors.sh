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
# Also elastic/rally-tracks' dense_vector and cohere_vector as published (tests/fixtures/rally-*-vector):
# ingest-percentage and a later bulk task of another corpus named, not silently changed.
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
# OpenSearch Benchmark reads the data set once: each row sent once, the cell ends then
assert v["vec"] == {"name": "vec", "type": "vector", "file": d + "/base.fbin", "passes": 1}, v["vec"]
assert s["run"]["duration"] == "86400s", s["run"]
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
mv vs/base.fbin base.keep
"$COORD" import-rally vs --workload-params vs/params/bigann.json -o vm.yaml 2> vm.err || { cat vm.err >&2; fail "missing data set: exit $?"; }
grep -q "data set not there yet: $TMP/vs/base.fbin" vm.yaml || { cat vm.yaml >&2; fail "missing data set not noted"; }
# what a vector-search asks that the import does not carry is named, never another query under the
# task's name: a filter on the data set's attribute columns (not indexed) leaves the task out;
# query_count and the ground truth (recall) are named; a nested field, rescore and a radial
# max_distance are written as OpenSearch Benchmark's _build_vector_search_query_body builds them
python3 - <<'PY'
import json
b = json.load(open("vs/params/bigann.json"))
f = dict(b, target_dataset_filter_attributes=["color", "taste", "age"], filter_type="efficient",
         filter_body={"bool": {"should": [{"term": {"color": "green"}}]}}, query_count=5,
         target_index_num_vectors=300,
         neighbors_data_set_path="neighbors.hdf5")
json.dump(f, open("filter.json", "w"))
json.dump(dict(b, target_field_name="nested_field.target_field", oversample_factor=2.0), open("nested.json", "w"))
r = dict(b, query_max_distance=0.5)
del r["query_k"]
json.dump(r, open("radial.json", "w"))
PY
"$COORD" import-rally vs --workload-params filter.json -o vf.yaml 2> vf.err || { cat vf.err >&2; fail "filtered vectorsearch: import exit $?"; }
grep -q "no-train-test: 9 tasks: 1 bulk, 0 searches imported, 6 mapped to what each cell does; 2 not imported: warmup-indices (warmup-knn-indices), prod-queries (vector-search: its filter_body (filter_type efficient) filters on the attribute fields" vf.err ||
    { cat vf.err >&2; fail "filtered vectorsearch: the filtered search not named as left out"; }
grep -q "not imported: filter_attributes" vf.yaml && ! grep -q '^search:' vf.yaml ||
    { cat vf.yaml >&2; fail "filtered vectorsearch: a search under the task's name, or the attributes not named"; }
# the same without the filter: the search imported, query_count and the ground truth named
python3 -c 'import json; f=json.load(open("filter.json")); f.pop("filter_type"); f.pop("filter_body"); json.dump(f,open("filter.json","w"))'
"$COORD" import-rally vs --workload-params filter.json -o vq.yaml 2> vq.err || { cat vq.err >&2; fail "query_count: import exit $?"; }
grep -q "num_vectors 5 of task 'prod-queries': the first 5 query rows (rows: on query_vec)" vq.yaml &&
    grep -q '{name: query_vec, type: vector, file: .*, rows: 5}' vq.yaml && ! grep -q "not imported: num_vectors" vq.yaml &&
    grep -q "not imported: recall of task 'prod-queries' (OpenSearch Benchmark reports recall@k and recall@1 of each answer against the ground-truth neighbors in neighbors.hdf5" vq.yaml ||
    { cat vq.yaml >&2; fail "query_count and recall not named"; }
# num_vectors of the bulk task (target_index_num_vectors): the first 300 rows, once
grep -q '{name: vec, type: vector, file: .*/base.fbin"*, passes: 1, rows: 300}' vq.yaml ||
    { cat vq.yaml >&2; fail "num_vectors of the bulk task not rows:"; }
mv base.keep vs/base.fbin
"$COORD" validate vq.yaml > vq.val 2>&1 || { cat vq.val >&2; fail "query_count: validate"; }
"$COORD" import-rally vs --workload-params nested.json -o vn.yaml 2> vn.err || { cat vn.err >&2; fail "nested: import exit $?"; }
"$COORD" import-rally vs --workload-params radial.json -o vd.yaml 2> vd.err || { cat vd.err >&2; fail "radial: import exit $?"; }
python3 - vn.yaml vd.yaml <<'PY' || fail "vector-search bodies are not OpenSearch Benchmark's"
import sys, yaml
n, d = (yaml.safe_load(open(f)) for f in sys.argv[1:])
assert n["document"]["source"] == '{"nested_field":[{"target_field":$[[vec]]}]}', n["document"]
(q,) = n["search"]["queries"]
assert q["body"] == ('{"_source":false,"docvalue_fields":["_id"],"query":{"nested":{"path":"nested_field",'
                     '"query":{"knn":{"nested_field.target_field":{"k":10,"rescore":{"oversample_factor":2.0},'
                     '"vector":$[[query_vec]]}}}}},"size":10,"stored_fields":"_none_"}'), q["body"]
(q,) = d["search"]["queries"]
assert q["body"] == ('{"_source":false,"docvalue_fields":["_id"],"query":{"knn":{"target_field":'
                     '{"max_distance":0.5,"vector":$[[query_vec]]}}},"stored_fields":"_none_"}'), q["body"]
PY
grep -q "not imported: the parents of the nested field nested_field.target_field" vn.yaml || { cat vn.yaml >&2; fail "nested parents not named"; }

# a later vector bulk task into another index (train-test's shape: train_index, then
# target_index) and a search of that index: named, not folded into the first task's cells
cat >> vs/test_procedures/default.json <<'J'
,{
  "name": "two-indices",
  "schedule": [
    {{ benchmark.collect(parts="common/index-only-schedule.json") }},
    {"operation": {"name": "other-bulk", "operation-type": "bulk-vector-data-set", "index": "other_index",
                   "field": "target_field", "bulk_size": 10, "data_set_format": "bigann", "data_set_path": "query.fbin"},
     "clients": 4},
    {"operation": {"name": "other-queries", "operation-type": "vector-search", "index": "other_index", "k": 5,
                   "field": "target_field", "data_set_format": "bigann", "data_set_path": "query.fbin"}}
  ]
}
J
"$COORD" import-rally vs --workload-params vs/params/bigann.json --test-procedure two-indices -o v2.yaml 2> v2.err ||
    { cat v2.err >&2; fail "two indices: import exit $?"; }
grep -qF 'two-indices: 6 tasks: 1 bulk, 0 searches imported, 3 mapped to what each cell does; 2 not imported: other-bulk (bulk-vector-data-set: index "other_index", the first bulk task'"'"'s "target_index"; the scenario loads the first bulk task'"'"'s documents), other-queries (vector-search: it searches index other_index; the scenario loads target_index)' v2.err ||
    { cat v2.err >&2; fail "two indices: the other index's tasks not named"; }
grep -q '^  concurrency: \[3\]$' v2.yaml || { cat v2.yaml >&2; fail "two indices: the other bulk task's clients in the cells"; }

# ---- Rally's dense_vector and cohere_vector, as published (their corpora are corpus files) -----
cp -r "$BF_SOURCE_DIR/tests/fixtures/rally-dense-vector" dv && mv dv/track.py.in dv/track.py
cp -r "$BF_SOURCE_DIR/tests/fixtures/rally-cohere-vector" cv && mv cv/track.py.in cv/track.py
python3 - <<'PY'
import bz2, json, random
rnd = random.Random(39)
d = [json.dumps({"vector": [round(rnd.uniform(-1, 1), 4) for _ in range(96)]}) for _ in range(40)]
open("dv/documents.json.bz2", "wb").write(bz2.compress(("\n".join(d) + "\n").encode()))
PY
"$COORD" import-rally dv --allow-partial-corpus -o dv.yaml 2> dv.err || { cat dv.err >&2; fail "dense_vector: import exit $?"; }
grep -q "index-and-search: 25 tasks: 2 bulk, 0 searches imported, 7 mapped to what each cell does; 16 not imported: wait-until-merges-finish-after-index (index-stats), knn-search-100-1000-concurrent-with-indexing (search: its request comes from the param-source 'knn-param-source'" dv.err ||
    { cat dv.err >&2; fail "dense_vector: not every task accounted for"; }
# ingest-percentage: Rally indexes a share of the corpus; named, never silently the whole
grep -q "bulk task 'index-append' indexes 20% of its corpus in Rally (ingest-percentage)" dv.err &&
    grep -q "not imported: ingest-percentage 20 of bulk task 'index-append'" dv.yaml &&
    grep -q "not imported: ingest-percentage 5 of bulk task 'index-update-concurrent-with-searches'" dv.yaml ||
    { cat dv.err dv.yaml >&2; fail "dense_vector: ingest-percentage not named"; }
grep -q "wrote dv.yaml; check it with" dv.err && "$COORD" validate dv.yaml > dv.val 2>&1 || { cat dv.err dv.val >&2; fail "dense_vector: validate"; }
grep -q '"vector":{"dims":96,"element_type":"float"' dv.yaml || { cat dv.yaml >&2; fail "dense_vector: not its mapping"; }
"$COORD" import-rally cv -o cv.yaml 2> cv.err || { cat cv.err >&2; fail "cohere_vector: import exit $?"; }
# the parallel bulk task writes another corpus: named, not folded into the first one's cells
grep -q "index-and-search: 12 tasks: 1 bulk, 0 searches imported, 4 mapped to what each cell does; 7 not imported: .*parallel-documents-indexing-bulk (bulk: corpora \"cohere-parallel-indexing\", the first bulk task's \"cohere-initial-indexing\"; the scenario loads the first bulk task's documents)" cv.err ||
    { cat cv.err >&2; fail "cohere_vector: not every task accounted for"; }
# its searches' param-source is the track's own class (query vectors from queries.json): said so
grep -q "standalone-search-knn-10-100-single-client (search: its request comes from the param-source 'knn-param-source' of the track's track.py, which bulkfleet does not run (the track's track.py registers KnnParamSource under it, not the published RandomSearchParamSource" cv.err ||
    { cat cv.err >&2; fail "cohere_vector: the track's own param-source class not named"; }
grep -q '^  concurrency: \[5\]$' cv.yaml && ! grep -q target_rate cv.yaml || { cat cv.yaml >&2; fail "cohere_vector: the parallel bulk task's clients or rate in the cells"; }
pass "random_vector, vectorsearch, dense_vector and cohere_vector imported, every task accounted for, the scenarios validate"
