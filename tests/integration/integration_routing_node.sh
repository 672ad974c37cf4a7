#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_routing_node — routing_mode node (and shard) on the real 3-node cluster (replicas 0, 6
# shards spread over the nodes): every document goes straight to its primary's node, so the
# cluster's inter-node traffic (_nodes/stats/transport rx bytes, summed over nodes) barely
# moves, while routing_mode none (all bulks to node 0, which forwards two thirds of the
# documents) moves it by about the bulk payload it forwards: measured around standalone runs,
# and as the rows' transport_rx_bytes from the coordinator's telemetry (per-node write-pool
# completions in telemetry/<cell>.ndjson, the routing finding in matrix.md). Both cells verify (_count), the
# routed row has no unrouted documents and a mean sub-bulk size near batch_size / 3, and
# documents without an id in the template get one from the agent (their count verifies).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
warm_cluster "$ES"
nodes=$(curl -sf "$ES/_cat/nodes?h=name" | wc -l)
[ "$nodes" -ge 3 ] || fail "the test cluster has $nodes nodes; integration_routing_* need 3"
P="bf-rtn-$$"
trap 'curl -sf -X DELETE "$ES/$P-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
cat > s.yaml <<YAML
name: routing-node
target: {hosts: ["$ES"]}
index: {name: "$P-{routing_mode}", recreate: true}
variables: [{name: n, type: range, from: 1, to: 1000}]
document: {source: '{"n": \$[[n]], "msg": "some text to make the document a little bigger than a number"}'}
run: {warmup: 1s, duration: 2s, seed: 16}
matrix: {shards: [6], replicas: [0], batch_size: [600], concurrency: [2], routing_mode: [none, node, shard]}
YAML
rx() { curl -sf "$ES/_nodes/stats/transport" | python3 -c 'import json,sys; print(sum(n["transport"]["rx_size_in_bytes"] for n in json.load(sys.stdin)["nodes"].values()))'; }
# standalone, one cell at a time, with the transport bytes read around each run
for cell in 1 2; do
    before=$(rx)
    timeout 120 "$AGENT" run s.yaml --cell $cell --threads 1 --results r$cell > o$cell 2> e$cell ||
        { cat e$cell >&2; fail "cell $cell exit $?"; }
    after=$(rx)
    echo $((after - before)) > rx$cell
done
# the coordinator's telemetry puts the same deltas (over the measurement window) in the rows
P=$(free_port)
# --duration 6s: the routing finding compares rows with 20+ bulk responses in their window (fewer
# is flagged few-requests and left out of findings); 2 s on a freshly started cluster gave ~15,
# and 4 s at load average 20 left the first row (none) few-requests (fresh-clone check, 01:02)
timeout 180 "$COORD" run s.yaml --local-agents 1 --threads 1 --insecure --bind "tcp://127.0.0.1:$P" \
    --duration 6s --results rc -q > oc 2> ec || { tail -20 ec >&2; fail "coordinator run exit $?"; }
python3 - rc <<'PY' || fail "coordinator rows"
import glob, json, sys
d = glob.glob(sys.argv[1] + "/*")[0]
rows = {r["axes"]["routing_mode"]: r for r in json.load(open(d + "/matrix.json"))["rows"]}
none, node = rows["none"], rows["node"]
for r in rows.values():
    assert r["verified"] is True, r["cell"]
    assert r["transport_rx_bytes"] is not None and r["transport_tx_bytes"] is not None, r["cell"]
print(f"coordinator rows: transport rx none {none['transport_rx_bytes']} B, node {node['transport_rx_bytes']} B")
assert node["transport_rx_bytes"] < 0.2 * none["transport_rx_bytes"], (node["transport_rx_bytes"], none["transport_rx_bytes"])
# routing_mode shard: one sub-bulk per shard (600 / 6), delivered to the primaries' nodes too
shard = rows["shard"]
assert shard["verified"] is True and shard["docs_unrouted"] == 0, shard
assert 80 <= shard["subbulk_docs_mean"] <= 120, shard["subbulk_docs_mean"]
assert shard["transport_rx_bytes"] < 0.2 * none["transport_rx_bytes"], shard["transport_rx_bytes"]
print(f"shard row: mean sub-bulk {shard['subbulk_docs_mean']:.1f} docs, transport rx {shard['transport_rx_bytes']} B")
# per node: the write pool ran bulk operations on every node (the index spans all three)
nodes = [json.loads(l) for l in open(glob.glob(d + "/telemetry/*route_node*.ndjson")[0])]
per = [n for n in nodes if n.get("type") == "node"]
assert len(per) == 3 and all((n["write_completed"] or 0) > 0 for n in per), per
print("per node (routing_mode node):", [(n["name"], n["write_completed"], n["transport_rx_bytes"]) for n in per])
text = open(d + "/matrix.md").read()
assert "routing_mode node over none" in text, "no routing finding in matrix.md (few_requests, unsteady: %s)" % [(r["few_requests"], r.get("unsteady")) for r in rows.values()]
assert "| sub-bulk docs | unrouted | misrouted | transport rx MB |" in text, "no routing columns in matrix.md"
PY
python3 - "$(cat rx1)" "$(cat rx2)" r1 r2 <<'PY' || fail "see above"
import glob, json, sys
rx_none, rx_node = int(sys.argv[1]), int(sys.argv[2])
rows = [json.load(open(glob.glob(d + "/*/matrix.json")[0]))["rows"][0] for d in sys.argv[3:5]]
none, node = rows
for r in rows:
    assert r["verified"] is True and r["docs_counted"] == r["docs_ok_all"] > 0, r
# bytes of bulk payload the coordinating node would forward in mode none: 2/3 of all of it
per_doc = none["mb_per_s_payload"] * 1e6 / max(none["attempted_docs_per_s"], 1)
fwd = per_doc * none["docs_ok_all"] * 2 / 3
print(f"transport rx: none {rx_none} B, node {rx_node} B; none forwards ~{fwd:.0f} B of payload")
print(f"node row: {node['docs_ok_all']} docs, mean sub-bulk {node['subbulk_docs_mean']:.1f} docs, "
      f"unrouted {node['docs_unrouted']}, misrouted {node['docs_misrouted']}")
assert rx_none > 0.5 * fwd, "routing_mode none moved less than the forwarded payload"
# node mode: what is left is cluster-state and stats chatter, not documents
assert rx_node < 0.2 * rx_none, (rx_node, rx_none)
assert node["docs_unrouted"] == 0 and node["docs_misrouted"] == 0, node
assert 150 <= node["subbulk_docs_mean"] <= 300, node["subbulk_docs_mean"]
assert none["subbulk_docs_mean"] is None, none["subbulk_docs_mean"]
PY
pass "routing_mode node: documents delivered to their primaries' nodes (transport rx $(cat rx2) B vs $(cat rx1) B unrouted), both cells verified"
