#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_routing_refresh — a primary moves while routing_mode node is loading: the index
# (3 shards, replicas 0, one per node) is told to leave the node holding shard 0's primary
# (index.routing.allocation.exclude._name), so that primary relocates mid-cell. The agent's
# routing table (request.routing_refresh: 500ms) picks the move up: documents sent to the old
# node for the moved shard before the re-read count as misrouted (> 0), documents keep being
# indexed (the old node forwards; the row verifies with _count), and after the move nothing is
# unrouted.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
warm_cluster "$ES"
IDX="bf-rtr-$$"
trap 'curl -sf -X DELETE "$ES/$IDX" > /dev/null 2>&1 || true; kill $R 2> /dev/null || true; cleanup_tmp' EXIT
cat > s.yaml <<YAML
name: routing-refresh
target: {hosts: ["$ES"]}
index: {name: "$IDX", recreate: true}
document: {source: '{"n": 1}'}
request: {routing_mode: node, routing_refresh: 500ms}
run: {warmup: 1s, duration: 12s}
matrix: {shards: [3], replicas: [0], batch_size: [200], concurrency: [1]}
YAML
timeout 120 "$AGENT" run s.yaml --threads 1 --results r > o 2> e & R=$!
# wait for the index, then move shard 0's primary away from its node
for i in $(seq 1 100); do
    node=$(curl -sf "$ES/_cat/shards/$IDX?h=shard,prirep,state,node" 2> /dev/null | awk '$1 == 0 && $2 == "p" && $3 == "STARTED" { print $4 }' || true)
    [ -n "$node" ] && break
    sleep 0.1
done
[ -n "$node" ] || fail "index $IDX did not come up"
sleep 0.5
curl -sf -X PUT "$ES/$IDX/_settings" -H 'Content-Type: application/json' \
    -d "{\"index.routing.allocation.exclude._name\": \"$node\"}" > /dev/null || fail "exclude $node"
wait $R || { cat e >&2; fail "run exit $?"; }
grep -q "routing table: primary of $IDX shard 0 moved from $node to" e ||
    { cat e >&2; fail "the agent did not see shard 0 move during the load"; }
after=$(curl -sf "$ES/_cat/shards/$IDX?h=shard,prirep,node" | awk '$1 == 0 && $2 == "p" { print $3 }')
[ -n "$after" ] && [ "$after" != "$node" ] || fail "shard 0 did not move off $node (now on '$after')"
python3 - r "$node" "$after" <<'PY' || { cat e >&2; fail "row"; }
import glob, json, sys
r = json.load(open(glob.glob(sys.argv[1] + "/*/matrix.json")[0]))["rows"][0]
print(f"shard 0 moved {sys.argv[2]} -> {sys.argv[3]}; {r['docs_sent']} documents sent, "
      f"{r['docs_misrouted']} misrouted, {r['docs_unrouted']} unrouted, {r['docs_counted']} counted")
assert r["verified"] is True and r["docs_ok_all"] > 0, r
assert r["docs_misrouted"] > 0, "the move was not noticed: no misrouted documents"
assert r["docs_misrouted"] < r["docs_sent"] / 3, "more misrouted than one shard's share"
PY
pass "a primary relocated mid-cell: the routing table followed it, misrouted documents counted, all indexed"
