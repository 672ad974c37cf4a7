#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_quickstart — examples/quickstart.yaml, all 8 cells, against a real 1-node
# Elasticsearch 8.17.0 (the "devcluster_es8_1" fixture: deploy/devcluster-es8, the server and the
# netty4 module from Maven Central; write pool 1 thread, queue 16, which the quickstart's at most
# 4 requests of 2 shards in flight do not overfill), from the coordinator with two local agents:
# the probe names Elasticsearch 8.17.0 and its node, every row has docs/s > 0, no rejection and
# is verified by _count. Then the quickstart's first cell with replicas 1, which one node cannot
# allocate: bulkfleet says so before the load ("1 replicas need 2 data nodes, the cluster has 1"),
# does not wait for a green that cannot come, and the row is flagged yellow and verified. Then
# examples/seed000-shards.yaml's 1- and 6-shard cells with the index's own analyzers
# (seed000_check in lib.sh: the launcher's bulkfleet-analysis-common module).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
URL=${BF_TEST_ES:?BF_TEST_ES is not set (run through ctest)}
version=$(curl -sf "$URL" | python3 -c 'import json,sys; v=json.load(sys.stdin)["version"]; print(v["number"], v.get("distribution","elasticsearch"))') ||
    fail "GET / on $URL"
[ "$version" = "8.17.0 elasticsearch" ] || fail "expected Elasticsearch 8.17.0 at $URL, got '$version'"
# warm the JIT with the same work (the first bulk requests on a cold node take seconds)
BF_TARGET="$URL" timeout 120 "$AGENT" run "$SRC/examples/quickstart.yaml" --cell 1 --threads 1 \
    --warmup 1s --first-warmup 0s --duration 2s > warm.out 2> warm.err || rc=$?
[ "${rc:-0}" -le 1 ] || { tail -5 warm.err >&2; fail "warm-up run (exit $rc)"; }
rc=0
P=$(free_port)
BF_TARGET="$URL" timeout 300 "$COORD" run "$SRC/examples/quickstart.yaml" --local-agents 2 --threads 1 \
    --insecure --bind "tcp://127.0.0.1:$P" --warmup 1s --first-warmup 0s --duration 2s --results r \
    > out 2> err || rc=$?
# exit 1 is a row that is not clean (few requests in 2 s, client-bound on a loaded machine: seen in
# a landing beside six others); every row is still checked below. 2 and above are errors.
[ "${rc:-0}" -le 1 ] || { tail -20 err >&2; fail "quickstart against Elasticsearch 8.17.0: exit $rc"; }
nodes=$(curl -sf "$URL/_cat/nodes?h=name" | wc -l)
[ "$nodes" = 1 ] && want="1 node" || want="$nodes nodes"
grep -q "target: elasticsearch 8.17.0, $want" err || { grep target: err >&2; fail "the probe did not name Elasticsearch 8.17.0"; }
python3 - r <<'PY' || fail "rows"
import glob, json, sys
rows = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"]
assert len(rows) == 8, len(rows)
for r in rows:
    assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] > 0, r["cell"]
    assert r["docs_per_s"] > 0, (r["cell"], r["docs_per_s"])
    # at most 4 requests x (1 coordinating + 2 shard tasks) in flight: the pool (1 + 16) never rejects
    assert r["docs_429"] == 0 and r["write_rejected"] == 0 and r["yellow"] is False, \
        (r["cell"], r["docs_429"], r["write_rejected"], r["yellow"])
    print(f"Elasticsearch 8.17.0: {r['cell']}: {r['docs_per_s']:.0f} docs/s, {r['docs_counted']} counted")
PY
# replicas 1 on one node: the scenario beside the quickstart's files (mappings/, dict/)
mkdir y
ln -s "$SRC/examples/mappings" "$SRC/examples/dict" y/
sed 's/^  replicas: 0$/  replicas: 1/' "$SRC/examples/quickstart.yaml" > y/quickstart-r1.yaml
grep -q '^  replicas: 1$' y/quickstart-r1.yaml || fail "examples/quickstart.yaml has no 'replicas: 0' line to change"
rc=0
P=$(free_port)
BF_TARGET="$URL" timeout 120 "$COORD" run y/quickstart-r1.yaml --local-agents 1 --threads 1 \
    --insecure --bind "tcp://127.0.0.1:$P" --warmup 1s --first-warmup 0s --duration 2s --cells 1 --results ry \
    > outy 2> erry || rc=$?
[ "${rc:-0}" -le 1 ] || { tail -20 erry >&2; fail "replicas 1 on one Elasticsearch 8 node: exit $rc"; }
grep -q "cell i1-s1-r1-b500-c2: 1 replicas need 2 data nodes, the cluster has 1: the indices will be yellow" erry ||
    { cat erry >&2; fail "no warning that one node leaves replicas 1 unassigned"; }
! grep -q "waiting for indices" erry || { cat erry >&2; fail "bulkfleet waited for a green one node cannot give"; }
python3 - ry <<'PY' || fail "the yellow row"
import glob, json, sys
rows = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"]
assert len(rows) == 1, len(rows)
r = rows[0]
assert r["cell"] == "i1-s1-r1-b500-c2" and r["replicas"] == 1, r["cell"]
assert r["yellow"] is True, r
assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] > 0, r
print(f"Elasticsearch 8.17.0, 1 node, replicas 1: {r['cell']}: yellow, {r['docs_per_s']:.0f} docs/s, "
      f"{r['docs_counted']} counted")
PY
seed000_check "$URL"
pass "quickstart (8 cells) against a 1-node Elasticsearch 8.17.0: every row verified; replicas 1: yellow, said, verified; seed000-shards with its own analyzers verified"
