#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_reject — a real Elasticsearch 8.17.0 node rejects, and every rejected document is
# counted once. The "devcluster_es8_1" fixture is one node whose write thread pool has 1 thread
# and a queue of 16 (devcluster.sh start ... -- --setting thread_pool.write.size=1 --setting
# thread_pool.write.queue_size=16). One cell of 64 bulk requests of 50 documents in flight
# (1 shard, 0 replicas, request.retry max 1, warmup 1 s + 3 s) from the coordinator with one
# local agent overfills that queue: the node answers es_rejected_execution_exception, for a
# whole request (HTTP 429, the coordinating step's task rejected) or for every item of the
# shard's request (HTTP 200, the primary's task rejected). Checked:
#   - the row has rejections (docs_rejected > 0, docs_retried > 0: resent once, then rejected);
#   - every document has one verdict: docs_sent_all = docs_ok_all + docs_rejected_all (no other
#     error), and over every sample docs_429 = docs_rejected + docs_retried (each 429 item is
#     either resent or final) and sends x 50 = docs_sent + docs_retried (what went on the wire);
#   - the node agrees: its write pool's rejected count (GET _nodes/stats/thread_pool, before and
#     after) rose by exactly docs_429 / 50 (one task per rejected 50-document request: 1 shard);
#   - the index holds the acknowledged documents only: GET _count = docs_ok_all, row verified;
#   - telemetry: the per-node write pool rejected count in telemetry/<cell>.ndjson rises during
#     the cell, stays within the before/after figures, and the row's write_rejected is > 0;
#   - both kinds were seen, and doc_errors and the agent's warning name
#     es_rejected_execution_exception for both (a whole-request 429's body is ~2.5 kB on
#     Elasticsearch 8, longer than the agent keeps of it).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
URL=${BF_TEST_ES:?BF_TEST_ES is not set (run through ctest)}
pool=$(curl -sf "$URL/_nodes/thread_pool?filter_path=nodes.*.thread_pool.write" |
    python3 -c 'import json,sys; n=list(json.load(sys.stdin)["nodes"].values()); print(len(n), n[0]["thread_pool"]["write"]["size"], n[0]["thread_pool"]["write"]["queue_size"])') ||
    fail "GET _nodes/thread_pool on $URL"
[ "$pool" = "1 1 16" ] || fail "expected 1 node with a write pool of 1 thread and a queue of 16 at $URL, got '$pool' (nodes size queue)"
rejected() {
    curl -sf "$URL/_nodes/stats/thread_pool?filter_path=nodes.*.thread_pool.write.rejected" |
        python3 -c 'import json,sys; print(sum(n["thread_pool"]["write"]["rejected"] for n in json.load(sys.stdin)["nodes"].values()))'
}
cat > reject.yaml <<'YAML'
name: reject
target:
  hosts: ["${BF_TARGET}"]
index:
  name: bf-reject
  recreate: true
variables:
  - {name: id, type: uuid}
  - {name: n, type: range, from: 1, to: 1000}
document:
  action: create
  id: $[[id]]
  source: '{"n": $[[n]]}'
request:
  timeout: 20s
  retry: {max: 1, backoff: 20ms}
run: {warmup: 1s, duration: 3s, seed: 7}
matrix:
  shards: 1
  replicas: 0
  batch_size: 50
  concurrency: 64
YAML
before=$(rejected) || fail "GET _nodes/stats/thread_pool before the cell"
P=$(free_port)
rc=0
BF_TARGET="$URL" timeout 120 "$COORD" run reject.yaml --local-agents 1 --threads 2 --insecure \
    --bind "tcp://127.0.0.1:$P" --results r > out 2> err || rc=$?
# exit 1: the row is not clean (it has rejections); 2 and above are errors
[ "$rc" -le 1 ] || { tail -20 err >&2; fail "the rejecting cell: exit $rc"; }
after=$(rejected) || fail "GET _nodes/stats/thread_pool after the cell"
count=$(curl -sf "$URL/bf-reject/_count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])') ||
    fail "GET bf-reject/_count"
python3 - r "$before" "$after" "$count" <<'PY' || { tail -20 err >&2; fail "rejections"; }
import glob, json, sys
res, before, after, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
run = glob.glob(res + "/*/")[0]
rows = json.load(open(run + "matrix.json"))["rows"]
assert len(rows) == 1, len(rows)
R = rows[0]
A = {}
for line in open(glob.glob(run + "cells/*.ndjson")[0]):
    j = json.loads(line)
    if j["type"] == "sample":
        for k, v in j.items():
            if isinstance(v, int) and not isinstance(v, bool):
                A[k] = A.get(k, 0) + v
        for k, v in j.get("http_status", {}).items():
            A["http_" + k] = A.get("http_" + k, 0) + v
def eq(what, got, want):
    assert got == want, f"{what}: {got}, want {want} (row {R}, samples {A})"
assert R["docs_rejected"] > 0 and R["docs_retried"] > 0 and R["docs_429"] > 0, R
eq("docs_sent_all = ok + rejected", R["docs_sent_all"], R["docs_ok_all"] + R["docs_rejected_all"])
eq("docs_failed_all", R["docs_failed_all"], 0)
eq("docs_unknown_all", R["docs_unknown_all"], 0)
eq("samples' docs_sent", A["docs_sent"], R["docs_sent_all"])
eq("samples' docs_ok", A["docs_ok"], R["docs_ok_all"])
eq("samples' docs_rejected", A["docs_rejected"], R["docs_rejected_all"])
eq("docs_429 = rejected + retried", A["docs_429"], A["docs_rejected"] + A["docs_retried"])
eq("documents on the wire: sends x 50", A["sends"] * 50, A["docs_sent"] + A["docs_retried"])
eq("the node's write pool rejections x 50", (after - before) * 50, A["docs_429"])
eq("_count", count, R["docs_ok_all"])
assert R["verified"] is True and R["docs_counted"] == count, R
# both kinds: a whole request answered 429, and a 200 whose items are 429
assert A.get("http_429", 0) > 0 and A.get("req_partial", 0) > 0, ("both kinds of rejection", A)
types = {e["type"] for e in R["doc_errors"]}
eq("doc_errors types", types, {"es_rejected_execution_exception"})
T = [json.loads(l) for l in open(glob.glob(run + "telemetry/*.ndjson")[0])]
ticks = [t["nodes"][0]["rejected"] for t in T if t["type"] == "tick" and t.get("nodes")]
assert len(ticks) >= 3, T
assert all(before <= x <= after for x in ticks), (before, ticks, after)
assert all(a <= b for a, b in zip(ticks, ticks[1:])), ticks
assert ticks[-1] > ticks[0], ticks
assert 0 < R["write_rejected"] <= after - before, (R["write_rejected"], before, after)
print(f"Elasticsearch 8.17.0, write pool 1 thread, queue 16, 64 requests of 50 in flight: "
      f"{A['sends']} requests, {R['docs_sent_all']} documents sent, {R['docs_ok_all']} ok, "
      f"{R['docs_rejected_all']} rejected, {A['docs_retried']} resent; {A['http_429']} requests "
      f"answered 429 whole, {A['req_partial']} with 429 items; 429 items {A['docs_429']}; "
      f"the node's write pool rejected {after - before} tasks ({before} -> {after}); telemetry "
      f"{ticks}, row write_rejected {R['write_rejected']}; _count {count}")
PY
# the agent's warning names the type and reason of a whole-request 429 cut short, not its raw JSON
grep -q "HTTP 429 from _bulk: es_rejected_execution_exception: rejected execution of " err ||
    { grep "HTTP 429" err >&2; fail "the agent's warning for a whole-request 429 does not name es_rejected_execution_exception"; }
pass "Elasticsearch 8.17.0 rejected (es_rejected_execution_exception); every document counted once, the node's pool agrees, the index holds the acknowledged ones"
