#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_vectors — `vector` variables (docs/vectors.md) into a real Elasticsearch
# dense_vector field (the "devcluster_es8" fixture: 3 nodes, 8.17.0; the script also runs on
# the Elasticsearch 9 launcher, BF_TEST_ES). For each index type (hnsw, int8_hnsw, bbq_hnsw) a
# campaign of 64-dimension unit vectors under cosine similarity, JSON encoded, one agent, 1 s +
# 2 s: the row is verified by _count, then force-merged to one segment a shard (index.force_merge:
# merge_s, segments_before/after in the row) with bytes_per_doc in the range of its encoding.
# Then the engine's reading of what was sent: for 5 stored documents, their vector (from
# _source, as sent) is a kNN query whose 10 hits hold the document;
# its first hit is the document with score 1 (cosine 1: Elasticsearch scores (1 + cos) / 2) for
# hnsw, and for the quantized types on Elasticsearch 9 with rescore_vector (the raw floats
# rescore the candidates; 8.17 has no rescore_vector, its quantized scores are approximate).
# kNN queries (search: with their own vector variable) measured beside a load: answered, 10 hits.
# Vectors from a file: 20,000 rows of a .fvecs written by Python, _id a sequence (the row number
# on the first pass, row + 20,000 on the second...): the stored _source is the row as in the
# file, and the row is its own nearest neighbour.
# Base64: on Elasticsearch 9.3 or later the same with encoding: base64 (the query vector is the
# _source's base64 decoded as big-endian float32, so the engine's decoding equals the
# reference one); on an older one the campaign is refused at the probe naming 9.3 (exit 2).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-es-vec-$$"
drop() {
    local t e
    curl -s -X DELETE "$ES/$IDX-knn?ignore_unavailable=true" > /dev/null 2>&1 || true
    for t in hnsw int8_hnsw bbq_hnsw; do for e in json base64 file; do
        curl -s -X DELETE "$ES/$IDX-$t-$e?ignore_unavailable=true" > /dev/null 2>&1 || true
    done; done
}
trap 'drop; cleanup_tmp' EXIT
version=$(curl -sf "$ES" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"]["number"])') ||
    fail "no cluster at $ES"
b64ok=$(python3 -c "v=tuple(int(x) for x in '$version'.split('-')[0].split('.')[:2]); print(int(v >= (9, 3)))")
# Elasticsearch 9 leaves vectors out of _source unless told to keep them (the check reads them)
keep=""
[ "${version%%.*}" -ge 9 ] && keep=", index.mapping.exclude_source_vectors: false"

# vectors from a file: 20,000 unit vectors of 64 dimensions written by Python as .fvecs
python3 - <<'PY'
import math, random, struct
rnd = random.Random(39)
with open("base.fvecs", "wb") as f:
    for _ in range(20000):
        v = [rnd.gauss(0, 1) for _ in range(64)]
        n = math.sqrt(sum(x * x for x in v))
        f.write(struct.pack("<i64f", 64, *(x / n for x in v)))
PY

# scenario TYPE ENCODING -> s-TYPE-ENCODING.yaml (ENCODING "file": base.fvecs's rows, in JSON)
scenario() {
    local vdef="{name: v, type: vector, dims: 64, distribution: unit, encoding: $2}"
    [ "$2" = file ] && vdef="{name: v, type: vector, file: $TMP/base.fvecs}"
    cat > "s-$1-$2.yaml" <<EOF
name: vec-$1-$2
target:
  hosts: ["$ES"]
index:
  name: $IDX-$1-$2
  recreate: true
  settings: {number_of_shards: 2, number_of_replicas: 0, refresh_interval: 1s$keep}
  force_merge: 1
  mappings:
    properties:
      n: {type: long}
      emb: {type: dense_vector, dims: 64, similarity: cosine, index: true,
            index_options: {type: $1}}
variables:
  - {name: id, type: sequence}
  - $vdef
document:
  action: create
  id: '\$[[id]]'
  source: '{"n": \$[[id]], "emb": \$[[v]]}'
request: {timeout: 30s}
run: {warmup: 1s, duration: 2s}
matrix:
  concurrency: [2]
  batch_size: [200]
EOF
}

# check TYPE ENCODING — the campaign's row verified; 5 documents their own nearest neighbour
check() {
    local t=$1 e=$2 P rc=0
    scenario "$t" "$e"
    P=$(free_port)
    timeout 180 "$COORD" run "s-$t-$e.yaml" --local-agents 1 --threads 1 --insecure \
        --bind "tcp://127.0.0.1:$P" --results "r-$t-$e" -q > "o-$t-$e" 2> "e-$t-$e" || rc=$?
    [ "$rc" -le 1 ] || { tail -20 "e-$t-$e" >&2; fail "$t/$e: campaign exit $rc"; }
    curl -sf -X POST "$ES/$IDX-$t-$e/_refresh" > /dev/null || fail "$t/$e: refresh"
    python3 - "r-$t-$e" "$ES" "$IDX-$t-$e" "$t" "$e" "$version" <<'PY' || fail "$t/$e: kNN check"
import base64, glob, json, struct, sys, urllib.request
d, es, idx, kind, enc, version = sys.argv[1:7]
major = int(version.split(".")[0])
(r,) = json.load(open(glob.glob(d + "/*/matrix.json")[0]))["rows"]
assert r["verified"] is True and not r["failed"], (r["docs_counted"], r["docs_ok_all"], r["reason"])
assert r["docs_counted"] == r["docs_ok_all"] > 0, (r["docs_counted"], r["docs_ok_all"])
# the after-load step (index.force_merge: 1): both shards merged to one segment each, timed
assert r["merge_s"] is not None and r["merge_s"] >= 0, r["merge_s"]
assert r["segments_before"] >= r["segments_after"] and 1 <= r["segments_after"] <= 2, \
    (r["segments_before"], r["segments_after"])
# bytes per document: 64 floats in JSON take 8 to 10 bytes each ("-0.123456,"), in base64 4
# bytes each as 4/3 as many characters (344), plus the action line and "n"
b = r["bytes_per_doc"]
assert (64 * 8 < b < 64 * 11 + 200) if enc != "base64" else (344 < b < 344 + 150), (enc, b)

def post(path, body):
    req = urllib.request.Request(es + path, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=30))

docs = post(f"/{idx}/_search", {"size": 5, "query": {"match_all": {}}, "sort": ["n"]})["hits"]["hits"]
assert len(docs) == 5, len(docs)
for h in docs:
    src = h["_source"]["emb"]
    if enc == "file":
        # the _id is a sequence from 0: row _id % 20000 of the file is what was sent (a fast
        # host reads the file more than once in the window: ids 20000.. carry rows 0.. again)
        with open("base.fvecs", "rb") as f:
            f.seek(int(h["_id"]) % 20000 * (4 + 4 * 64))
            d, *q = struct.unpack("<i64f", f.read(4 + 4 * 64))
        f32 = [struct.unpack("<f", struct.pack("<f", x))[0] for x in src]
        assert d == 64 and f32 == q, (h["_id"], src[:3], q[:3])
    elif enc == "base64":
        assert isinstance(src, str), type(src)
        raw = base64.b64decode(src)
        assert len(raw) == 4 * 64, len(raw)
        q = list(struct.unpack(">64f", raw))
    else:
        assert isinstance(src, list) and len(src) == 64, src
        q = src
    knn = {"field": "emb", "query_vector": q, "k": 10, "num_candidates": 100}
    res = post(f"/{idx}/_search", {"size": 10, "_source": False, "knn": knn})["hits"]["hits"]
    # the same vector under another pass's id scores the same: compare by the file's row
    same = (lambda i: int(i) % 20000 == int(h["_id"]) % 20000) if enc == "file" else (lambda i: i == h["_id"])
    ids = [x["_id"] for x in res]
    assert any(same(i) for i in ids), (kind, h["_id"], ids)
    if kind != "hnsw":
        if major < 9:
            continue  # quantized scores; rescore_vector is 8.18+
        # the raw float vectors rescore the quantized candidates
        knn["rescore_vector"] = {"oversample": 3.0}
        res = post(f"/{idx}/_search", {"size": 10, "_source": False, "knn": knn})["hits"]["hits"]
        ids = [x["_id"] for x in res]
    # cosine 1 (Elasticsearch's cosine score is (1 + cos) / 2): the indexed vector points where
    # the sent one does; a float32 score of a rescored vector can read 0.999999, so 1e-5
    assert same(ids[0]) and abs(res[0]["_score"] - 1.0) < 1e-5, (kind, h["_id"], res[:2])
print(f"{kind}/{enc}: {r['docs_per_s']:.0f} docs/s, {r['docs_counted']} counted, "
      f"{b:.0f} bytes/doc, force merge {r['merge_s']:.2f} s ({r['segments_before']} -> "
      f"{r['segments_after']} segments), 5 documents their own nearest neighbour with cosine 1")
PY
}

for t in hnsw int8_hnsw bbq_hnsw; do
    check "$t" json
done
check hnsw file
# kNN queries measured beside the load (search:), their query vectors a vector variable of their own
cat > knn.yaml <<EOF
name: vec-knn
target:
  hosts: ["$ES"]
index:
  name: $IDX-knn
  recreate: true
  settings: {number_of_shards: 1, number_of_replicas: 0, refresh_interval: 1s$keep}
  mappings:
    properties:
      emb: {type: dense_vector, dims: 64, similarity: cosine, index: true}
variables:
  - {name: id, type: sequence}
  - {name: v, type: vector, dims: 64, distribution: unit}
  - {name: q, type: vector, dims: 64, distribution: unit}
document:
  action: create
  id: '\$[[id]]'
  source: '{"emb": \$[[v]]}'
search:
  clients: 1
  prefill: 2000
  queries:
    - name: knn
      body: '{"knn": {"field": "emb", "query_vector": \$[[q]], "k": 10, "num_candidates": 50}, "_source": false}'
request: {timeout: 30s}
run: {warmup: 1s, duration: 2s}
matrix:
  concurrency: [2]
  batch_size: [200]
EOF
P=$(free_port)
rc=0
timeout 180 "$COORD" run knn.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --results rk -q > ok.out 2> ok.err || rc=$?
[ "$rc" -le 1 ] || { tail -20 ok.err >&2; fail "knn beside the load: exit $rc"; }
python3 - rk <<'PY' || fail "knn beside the load"
import glob, json, sys
(r,) = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"]
assert r["verified"] is True and not r["failed"], r["reason"]
(q,) = r["queries"]
assert q["query"] == "knn" and q["ops_ok"] > 0 and q["ops_error"] == 0 and q["mean_hits"] == 10, q
print(f"knn beside the load: {r['docs_per_s']:.0f} docs/s verified, {q['ops_per_s']:.1f} kNN "
      f"queries/s, 10 hits each")
PY
if [ "$b64ok" = 1 ]; then
    for t in hnsw int8_hnsw bbq_hnsw; do
        check "$t" base64
    done
    pass "Elasticsearch $version: dense_vector hnsw, int8_hnsw, bbq_hnsw in JSON, base64 and from .fvecs verified; each vector its own nearest neighbour"
else
    scenario hnsw base64
    P=$(free_port)
    rc=0
    timeout 60 "$COORD" run s-hnsw-base64.yaml --local-agents 1 --threads 1 --insecure \
        --bind "tcp://127.0.0.1:$P" --results rb > ob 2> eb || rc=$?
    [ "$rc" = 2 ] || { tail -5 eb >&2; fail "base64 on Elasticsearch $version: exit $rc, want 2"; }
    grep -q "encoding: base64 needs Elasticsearch 9.3 or later.*$version" eb ||
        { cat eb >&2; fail "base64 on $version: the refusal does not name 9.3 and $version"; }
    pass "Elasticsearch $version: dense_vector hnsw, int8_hnsw, bbq_hnsw in JSON and 20,000 .fvecs rows verified; each vector its own nearest neighbour; base64 refused at the probe (needs 9.3)"
fi
