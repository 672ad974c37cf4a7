#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_search_msearch — _msearch queries against the real test cluster (2 shards, 1,000
# prefilled documents, search alone, 2 closed-loop clients, warmup 1 s + 2 s): the body is an
# NDJSON template of header/body pairs and every search in it counts as one op.
#   1. three searches per request: ops_sent = ops_ok = service_count, a multiple of 3, no
#      errors, and the cluster's query phases on the index = answered searches x 2 shards
#      (search_verified true);
#   2. a fourth search whose aggregation makes too many buckets: the cluster fails that item
#      alone (HTTP 503 too_many_buckets_exception inside a 200): exactly one error of that type
#      per three answered searches, and the cell is not failed;
#   The first runs open loop at 100,000 queries/s (2 clients cannot: search-rate-missed, with
#   both rates in the reason, exit code 0), the second at 4/s (kept: no flag).
#   3. a header naming a missing index: the item's 404 fails the cell fast, naming the query,
#      the search's place in the body and the cluster's reason;
#   4. (search.prefill) a cell that prefills 1,000 documents and then creates its own with the
#      same `sequence` id: no 409, verified (the load's sequences start after the prefill's).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
IDX="bf-msearch-$$"
trap 'curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
# scenario QUERY-BODY-LINES...: the same index, prefill and matrix, one _msearch query
scenario() {
    cat <<EOF
name: msearch
target: {hosts: ["$ES"]}
index:
  name: $IDX
  mappings: {properties: {n: {type: integer}, w: {type: keyword}}}
variables:
  - {name: n, type: range, from: 1, to: 1000}
  - {name: w, type: list, data: [alpha, bravo, charlie]}
document: {source: '{"n": \$[[n]], "w": "\$[[w]]"}'}
search:
  clients: 2
  target_rate: ${RATE:-0}
  prefill: 1000
  queries:
    - name: multi
      path: /{index}/_msearch
      body: |
EOF
    local l
    for l in "$@"; do printf '        %s\n' "$l"; done
    printf 'matrix:\n  shards: [2]\n  replicas: [0]\n  concurrency: [0]\n  search_clients: [2]\n'
}
GOOD=('{}' '{"query": {"term": {"w": "$[[w]]"}}, "size": 5}'
      '{}' '{"size": 0, "query": {"range": {"n": {"gte": $[[n]]}}}}'
      '{"request_cache": false}' '{"query": {"match_all": {}}, "size": 1}')
BUCKETS='{"size": 0, "aggs": {"h": {"histogram": {"field": "n", "interval": 0.01, "min_doc_count": 0}}}}'
run_one() { # name yaml: run the campaign, exit code in $rc
    local P
    P=$(free_port)
    rc=0
    timeout 120 "$COORD" run "$2" --local-agents 1 --threads 1 --insecure --warmup 1s --duration 2s \
        --bind "tcp://127.0.0.1:$P" --results "r-$1" -q > "out-$1" 2> "err-$1" || rc=$?
}
RATE=100000 scenario "${GOOD[@]}" > good.yaml
"$COORD" validate good.yaml > /dev/null || fail "good.yaml does not validate"
run_one good good.yaml
[ "$rc" = 0 ] || { tail -30 err-good >&2; fail "good: campaign exit $rc"; }
python3 - r-good <<'PY' || fail "good: rows"
import glob, json, sys
d = glob.glob(sys.argv[1] + "/*/")[0]
r = json.load(open(d + "matrix.json"))["rows"][0]
assert not r["failed"], r["reason"]
q = r["queries"][0]
assert q["query"] == "multi", q
assert q["ops_ok"] > 0 and q["ops_error"] == 0 and q["errors"] == "", q
# every search of every request counted once, whole requests only (sent counts by the second a
# request started, answers by the second it ended: at most the 2 clients' requests in flight
# at each end of the window differ)
assert q["ops_sent"] % 3 == 0 and q["ops_ok"] % 3 == 0 and q["ops_ok_all"] % 3 == 0, q
assert abs(q["ops_sent"] - q["ops_ok"]) <= 2 * 3, q
assert q["service_count"] == q["ops_ok"] == q["latency_count"], q
assert q["mean_hits"] > 0 and q["took_mean_ms"] is not None, q
series = 0
for line in open(d + "cells/" + r["cell"] + ".ndjson"):
    o = json.loads(line)
    if o.get("type") == "second":
        series += o.get("query_ops", {}).get("multi", 0)
assert series == q["ops_ok_all"], (series, q["ops_ok_all"])
# the cluster ran one query phase per answered search per shard (headers {} search the path's
# index; no sort, no routing): exact
assert r["search_verified"] is True, (r["search_shard_queries"], r["search_shard_queries_expected"], r["reason"])
assert r["search_shard_queries"] == 2 * q["ops_ok_all"], r["search_shard_queries"]
# open loop at 100,000 _msearch requests/s with 2 clients: far behind, flagged, both rates said
assert r["search_rate_missed"] is True and r["search_rate"] == 100000, r
assert 0 < r["search_started_per_s"] < 98000 and "search-rate-missed" in r["reason"], r["reason"]
# each _msearch request is one query started: started/s x 3 searches ~ sent searches/s
assert abs(r["search_started_per_s"] * 3 - q["ops_sent"] / 2.0) <= 2 * 3, (r["search_started_per_s"], q["ops_sent"])
md = open(d + "matrix.md").read()
assert "search-rate-missed" in md, md
print("good: searches", q["ops_ok_all"], "in", q["ops_ok_all"] // 3, "requests;", "started/s", r["search_started_per_s"], "of 100000;",
      "cluster query phases", r["search_shard_queries"], "; p50", q["service_p50_ms"], "ms")
PY
RATE=4 scenario "${GOOD[@]}" '{}' "$BUCKETS" > buckets.yaml
run_one buckets buckets.yaml
[ "$rc" = 0 ] || { tail -30 err-buckets >&2; fail "buckets: campaign exit $rc"; }
python3 - r-buckets <<'PY' || fail "buckets: rows"
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]
assert not r["failed"], r["reason"]
q = r["queries"][0]
# 4 searches a request: 3 answered, 1 failed by the cluster in that item alone
assert q["ops_ok"] > 0 and q["ops_ok"] % 3 == 0, q
assert q["ops_error"] == q["ops_ok"] // 3, q
assert q["errors"] == "too_many_buckets_exception %d" % q["ops_error"], q["errors"]
assert q["ops_ok"] + q["ops_error"] == q["service_count"] and q["ops_sent"] % 4 == 0, q
assert abs(q["ops_sent"] - q["service_count"]) <= 2 * 4, q
assert r["search_verified"] is None, r["search_verified"]
# 4 _msearch requests/s are kept by 2 clients: not flagged
assert r["search_rate_missed"] is False and 3.9 <= r["search_started_per_s"] <= 4.1, r["search_started_per_s"]
print("buckets: answered", q["ops_ok"], "failed", q["errors"])
PY
scenario '{}' '{"query": {"match_all": {}}}' "{\"index\": \"bf-no-such-index-$$\"}" '{}' > missing.yaml
s0=$(date +%s)
run_one missing missing.yaml
el=$(( $(date +%s) - s0 ))
[ "$rc" = 1 ] || { tail -20 err-missing >&2; fail "missing: exit $rc, want 1 (cell failed)"; }
python3 - r-missing <<'PY' || fail "missing: the failed row"
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]
assert r["failed"] is True, r
want = "search query 'multi'", "search 2 of its _msearch (lines 3-4 of the body)", "HTTP 404 index_not_found_exception"
assert all(w in r["reason"] for w in want), r["reason"]
print("missing ->", r["reason"][:200])
PY
[ "$el" -lt 30 ] || fail "missing: the cell took $el s"
# prefill and load in one cell with sequence ids (create): the load's ids start after the
# prefill's (regression: they repeated them, 409 for the first 1000 load documents)
cat > seq.yaml <<EOF
name: msearch-seq
target: {hosts: ["$ES"]}
index: {name: $IDX-seq, recreate: true}
variables:
  - {name: id, type: sequence, from: 1}
document: {action: create, id: "\$[[id]]", source: '{"n": 1}'}
search:
  clients: 1
  prefill: 1000
  queries: [{name: all, path: "/{index}/_count"}]
matrix: {concurrency: [1], search_clients: [1], batch_size: [200]}
EOF
# no warmup: the first load documents are the ones that would collide (in a warmup they would
# not show in the row)
P=$(free_port)
rc=0
timeout 120 "$COORD" run seq.yaml --local-agents 1 --threads 1 --insecure --warmup 0s --duration 2s \
    --bind "tcp://127.0.0.1:$P" --results r-seq -q > out-seq 2> err-seq || rc=$?
curl -sf -X DELETE "$ES/$IDX-seq" > /dev/null 2>&1 || true
[ "$rc" = 0 ] || { tail -20 err-seq >&2; fail "seq: campaign exit $rc"; }
python3 - r-seq <<'PY' || fail "seq: row"
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]
assert r["docs_conflict"] == 0 and r["verified"] is True and r["docs_ok_all"] > 0, (r["docs_conflict"], r["reason"])
print("seq: prefill 1000 + load", r["docs_ok_all"], "created, 0 conflicts, verified")
PY
pass "_msearch: each search counted from responses[], verified by the cluster's query phases; item errors by type; a bad item fails fast"
